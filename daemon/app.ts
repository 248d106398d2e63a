import { Hono } from 'hono';
import type { RuntimeEnv } from './auth/principal.js';
import { ExecError, errorBody } from './errors/exec-error.js';
import type { AuthorizationStore } from './auth/store.js';
import { runtimeAdmission, runtimeAuth } from './http/runtime-auth.js';
import { admitRow, operatorAuth, viaSocket, wantsTopLevelCode } from './operator/auth.js';
import type { PairedDevices } from './operator/devices.js';
import { operatorReadsHint } from './operator/reads.js';
import { OPERATOR_API } from '../catalog/operator/table.js';
import {
  CORE_OPERATOR_ROUTES,
  coreOperatorHandlers,
  type CoreOperatorRoute,
  type OperatorContext,
} from './operator/routes.js';
import {
  absentRoute,
  registerOperatorApi,
  type OperatorHandlers,
} from './http/operator-dispatch.js';
import type { Diag } from './lifecycle/diag.js';
import { hostOriginCheck, hostOriginGuard } from './http/host-origin.js';
import { execLane } from './exec/lane.js';
import { fixedResponse, forbiddenReply } from './http/reply.js';
import type { ExecDeps } from './exec/route.js';
import { ERROR_TABLE } from '../catalog/errors.js';
import { DEFAULT_SERVER } from '../catalog/ids.js';
import type { ResultGate } from './results/gate.js';
import { operatorSpans } from './http/operator-spans.js';
import { registerMetricsRoute } from './telemetry/metrics-route.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { consoleOperator } from './console/operator-client.js';
import { consoleHostName, isConsolePath, mountConsole } from './console/mount.js';
import {
  EXEC_CATALOG_PATH,
  MCP_PREFIXES,
  OPERATOR_SCOPE,
  RUNTIME_AUTH_PATHS,
  RUNTIME_PREFIXES,
} from './http/paths.js';
import { PrefixRouter } from './http/prefix-router.js';

interface AppContext extends OperatorContext {
  readonly store: AuthorizationStore;
  readonly operatorToken: string;
  readonly diag: Diag;
  /** The listen address and bound port, for the Host/Origin check of every route family. */
  readonly listenHost: string;
  readonly port: () => number;
  readonly allowHosts?: readonly string[];
  /** The one result gate: mounted first, so it sees every response on its way out. */
  readonly gate: ResultGate;
  /**
   * Registers the routes owned by other parts (Exec action route, MCP) and
   * answers with their handlers of the operator API's rows. Without it (a bare
   * app in a test) those rows are not served.
   */
  readonly extraRoutes?: (app: Hono<RuntimeEnv>) => PartOperatorHandlers | undefined;
  readonly clock?: Clock;
  /** Paired devices: their tokens are accepted on the rows a device may call. */
  readonly devices?: PairedDevices;
}

/** The operator API's rows the daemon's parts answer (daemon/parts.ts). */
export type PartOperatorHandlers = Omit<OperatorHandlers, CoreOperatorRoute>;

/** A refusal in the shape of the route family: a JSON-RPC frame for MCP, the envelope elsewhere. */
function refuse(path: string, message: string): Response {
  const envelope = forbiddenReply(message);
  if (!MCP_PREFIXES.some((p) => path.startsWith(p))) return fixedResponse(envelope);
  const frame = {
    jsonrpc: '2.0',
    id: null,
    error: { code: ERROR_TABLE.forbidden.jsonrpc, message },
  };
  return fixedResponse({ ...envelope, body: JSON.stringify(frame) });
}

/**
 * The route table. Cross-cutting checks happen once, before any handler:
 * Host and Origin for every path, then by path family the operator bearer
 * for /api/v1 and runtime credential + binding + admission for the Exec and
 * MCP families. Errors become envelopes in one place.
 */
/** A bare app's part rows: each answers as an unregistered route does. */
function absentParts(): PartOperatorHandlers {
  const CORE = new Set<string>(CORE_OPERATOR_ROUTES);
  return Object.fromEntries(
    OPERATOR_API.filter((r) => !CORE.has(r.name)).map((r) => [r.name, absentRoute]),
  ) as unknown as PartOperatorHandlers;
}

/**
 * The Exec lane in front of the app (exec/lane.ts): the canonical action call
 * answered from Node's request, under the same Host/Origin rules (the
 * console's name never applies to an Exec path, so it is left out) and the
 * same admission as the app's runtime routes.
 */
export function buildExecLane(
  ctx: Pick<AppContext, 'store' | 'diag' | 'listenHost' | 'port' | 'allowHosts'>,
  exec: ExecDeps,
): ReturnType<typeof execLane> {
  return execLane({
    exec,
    guard: hostOriginCheck({
      listenHost: ctx.listenHost,
      port: ctx.port,
      ...(ctx.allowHosts ? { allowHosts: ctx.allowHosts } : {}),
    }),
    admission: runtimeAdmission(ctx.store, ctx.diag),
    release: (auth) => ctx.store.release(auth),
    diag: ctx.diag,
  });
}

export function buildApp(ctx: AppContext): Hono<RuntimeEnv> {
  // RegExpRouter cannot hold GET .../catalog beside GET .../:domain/:action, so the
  // default SmartRouter falls back to TrieRouter (~2.6 us a match on this table);
  // PatternRouter gives the same matches in ~1.2 us, and with a short table for
  // the runtime families' prefixes an Exec or MCP call skips the operator rows.
  const app = new Hono<RuntimeEnv>({ router: new PrefixRouter(RUNTIME_PREFIXES) });
  app.use('*', ctx.gate.middleware());
  app.onError((err, c) => {
    if (!(err instanceof ExecError))
      ctx.diag('internal_error', {
        path: c.req.path,
        error: String((err as Error)?.message ?? err),
      });
    const body = errorBody(err);
    const status = err instanceof ExecError ? err.status : 500;
    // Apps (the unix socket, paired devices) read the seed's top-level code beside error.code.
    const code = wantsTopLevelCode(c) ? { code: body.code } : {};
    return c.json({ ok: false, error: body, ...code }, status as 500);
  });
  app.notFound((c) => {
    // A read path with an action that is not an operator read: say which reads are open.
    const hint = operatorReadsHint(c.req.path);
    const err = hint
      ? new ExecError('not_found', 'no such operator read', { hint })
      : new ExecError('not_found', 'no such route');
    const code = wantsTopLevelCode(c) ? { code: err.code } : {};
    return c.json({ ok: false, error: errorBody(err), ...code }, 404);
  });

  const consoleName = consoleHostName();
  // The unix socket has no Host to check and no browser can reach it: its file permissions are the guard.
  const guard = hostOriginGuard({
    listenHost: ctx.listenHost,
    console: { name: consoleName, owns: isConsolePath },
    port: ctx.port,
    ...(ctx.allowHosts ? { allowHosts: ctx.allowHosts } : {}),
    reject: (c, message) => {
      ctx.diag('host_origin_refused', { path: c.req.path });
      return refuse(c.req.path, message);
    },
  });
  app.use('*', (c, next) => (viaSocket(c) ? next() : guard(c, next)));
  app.use(OPERATOR_SCOPE, operatorSpans());
  app.use(
    OPERATOR_SCOPE,
    operatorAuth({ token: ctx.operatorToken, ...(ctx.devices ? { devices: ctx.devices } : {}) }),
  );
  // Metrics take the operator token alone: no device, and the socket never serves them.
  registerMetricsRoute(app, operatorAuth({ token: ctx.operatorToken }));

  const auth = runtimeAuth(ctx.store, ctx.diag);
  for (const path of RUNTIME_AUTH_PATHS) app.use(path, auth);

  app.get(EXEC_CATALOG_PATH, (c) => {
    const pinned = ctx.store.get(c.get('runtime').principal.authorizationId)?.catalog;
    if (!pinned) throw new ExecError('unavailable', 'the runtime authorization was revoked');
    return c.body(pinned.body, 200, { 'content-type': 'application/json' });
  });
  const parts = ctx.extraRoutes?.(app);
  // The operator console (/console/): its pages read the operator API, in process.
  const clock = ctx.clock ?? systemClock;
  const console = mountConsole(app, {
    operator: consoleOperator((r) => app.fetch(r), ctx.operatorToken, ctx.port),
    clock,
    defaultServer: DEFAULT_SERVER,
    host: () => `${consoleName}:${ctx.port()}`,
  });
  registerOperatorApi(
    app,
    { ...coreOperatorHandlers(ctx), ...console, ...(parts ?? absentParts()) },
    clock,
    admitRow,
  );
  return app;
}
