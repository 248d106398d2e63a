import type { Hono } from 'hono';
import type { Clock } from '../lib/clock.js';
import type { Authorization } from './auth/authorization.js';
import type { LaunchHook } from './operator/runtimes.js';
import type { Diag } from './lifecycle/diag.js';
import { prepareRuntimeDriver, refreshRuntimeDriver } from './drivers/index.js';
import { openServices } from './services.js';
import type { ResultGate } from './results/gate.js';
import { registerExecActionRoute } from './exec/route.js';
import { registerMcpRoutes } from './mcp/routes.js';
import { registerMessageOperatorRoutes } from './mcp/operator-routes.js';
import { isDenyable, openClientTools, rememberedClientTools } from './clienttools/part.js';

/**
 * The parts of the daemon owned by other modules (services, Exec action
 * route, MCP, runtime drivers), opened at start and closed at stop. Keeping
 * them behind this one seam keeps server.ts about lifecycle only.
 */
export interface DaemonParts {
  registerRoutes(app: Hono<any>): void;
  /** The result gate; the server adds the token and operator-token secret sources once the store exists. */
  readonly gate: ResultGate;
  readonly launchHook?: LaunchHook;
  readonly onPublished?: (auth: Authorization) => void;
  reload(): Promise<unknown>;
  close(): Promise<void>;
}

export async function openDaemonParts(opts: { home: string; clock: Clock; diag: Diag }): Promise<DaemonParts> {
  const remembered = rememberedClientTools(opts.home, (message) => opts.diag('client_tools', { message }));
  const services = openServices({
    home: opts.home, clock: opts.clock, log: (message) => opts.diag('profile', { message }), denyable: isDenyable(remembered),
  });
  const clientTools = openClientTools({
    home: opts.home, clock: opts.clock, registry: services.tools, profile: services.profile, remembered,
    log: (message) => opts.diag('client_tools', { message }),
  });
  await services.registry.useGeneratedValidators();
  const mcpUrls = new WeakMap<Authorization, string>();
  const launchHook: LaunchHook = (auth, runtime, mcpUrl, env) => {
    mcpUrls.set(auth, mcpUrl);
    const launch = prepareRuntimeDriver({ runtime, mcpUrl, tokenFile: auth.tokenFile, privateDir: auth.dir, env });
    return { env: launch.env, args: launch.args };
  };
  const onPublished = (auth: Authorization) => {
    const mcpUrl = mcpUrls.get(auth);
    if (mcpUrl) refreshRuntimeDriver({ runtime: auth.runtime, mcpUrl, tokenFile: auth.tokenFile, privateDir: auth.dir });
  };
  return {
    gate: services.gate,
    registerRoutes: (app) => {
      registerExecActionRoute(app, services);
      registerMcpRoutes(app, { ...services, hiddenFor: clientTools.hiddenFor, notifier: clientTools.notifier });
      registerMessageOperatorRoutes(app, services);
      clientTools.registerRoutes(app);
    },
    launchHook,
    onPublished,
    reload: async () => services.reloadProfile(),
    close: async () => {
      clientTools.close();
      services.close();
    },
  };
}
