import type { Hono } from 'hono';
import type { Clock } from '../lib/clock.js';
import type { Authorization } from './auth/authorization.js';
import type { LaunchHook } from './operator/runtimes.js';
import type { Diag } from './lifecycle/diag.js';
import { prepareRuntimeDriver, refreshRuntimeDriver } from './drivers/index.js';
import { openServices } from './services.js';
import type { IdempotencyLimits } from './store/idempotency.js';
import { registerExecActionRoute } from './exec/route.js';
import { registerMcpRoutes } from './mcp/routes.js';
import { registerMessageOperatorRoutes } from './mcp/operator-routes.js';

/**
 * The parts of the daemon owned by other modules (services, Exec action
 * route, MCP, runtime drivers), opened at start and closed at stop. Keeping
 * them behind this one seam keeps server.ts about lifecycle only.
 */
export interface DaemonParts {
  registerRoutes(app: Hono<any>): void;
  readonly launchHook?: LaunchHook;
  readonly onPublished?: (auth: Authorization) => void;
  reload(): Promise<unknown>;
  close(): Promise<void>;
}

export async function openDaemonParts(opts: { home: string; clock: Clock; diag: Diag; idempotency?: IdempotencyLimits | undefined }): Promise<DaemonParts> {
  const services = openServices({
    home: opts.home,
    clock: opts.clock,
    log: (message) => opts.diag('profile', { message }),
    ...(opts.idempotency ? { idempotency: opts.idempotency } : {}),
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
    registerRoutes: (app) => {
      registerExecActionRoute(app, services);
      registerMcpRoutes(app, services);
      registerMessageOperatorRoutes(app, services);
    },
    launchHook,
    onPublished,
    reload: async () => services.reloadProfile(),
    close: async () => services.close(),
  };
}
