import { Hono } from 'hono';
import { PatternRouter } from 'hono/router/pattern-router';
import type { RuntimeEnv } from './http/principal.js';
import { ExecError, errorBody } from './errors.js';
import type { AuthorizationStore } from './auth/store.js';
import { runtimeAuth } from './http/runtime-auth.js';
import { operatorAuth } from './operator/auth.js';
import { registerOperatorRoutes, type OperatorContext } from './operator/routes.js';
import type { Diag } from './lifecycle/diag.js';
import type { ResultGate } from './results/gate.js';

export const EXEC_BASE = '/api/internal/exec/servers/:serverId/agents/:agentId';
export const MCP_PATH = '/api/internal/mcp/servers/:serverId/agents/:agentId';
export const MCP_LEGACY_PATH = '/mcp/agentteam/:serverId/:agentId';

export interface AppContext extends OperatorContext {
  readonly store: AuthorizationStore;
  readonly operatorToken: string;
  readonly diag: Diag;
  /** The one result gate: mounted first, so it sees every response on its way out. */
  readonly gate: ResultGate;
  /** Registers routes owned by other parts (Exec action route, MCP, message operator routes). */
  readonly extraRoutes?: (app: Hono<RuntimeEnv>) => void;
}

/**
 * The route table. Cross-cutting checks happen once, by path family, before
 * any handler: operator bearer for /api/v1, runtime credential + binding +
 * admission for the Exec and MCP families. Errors become envelopes in one place.
 */
export function buildApp(ctx: AppContext): Hono<RuntimeEnv> {
  // RegExpRouter cannot hold GET .../catalog beside GET .../:domain/:action, so the
  // default SmartRouter falls back to TrieRouter (~2.6 us a match on this table);
  // PatternRouter gives the same matches in ~1.2 us.
  const app = new Hono<RuntimeEnv>({ router: new PatternRouter() });
  app.use('*', ctx.gate.middleware());
  app.onError((err, c) => {
    if (!(err instanceof ExecError)) ctx.diag('internal_error', { path: c.req.path, error: String((err as Error)?.message ?? err) });
    const body = errorBody(err);
    const status = err instanceof ExecError ? err.status : 500;
    return c.json({ ok: false, error: body }, status as 500);
  });
  app.notFound((c) => c.json({ ok: false, error: errorBody(new ExecError('not_found', 'no such route')) }, 404));

  app.use('/api/v1/*', operatorAuth(ctx.operatorToken));
  registerOperatorRoutes(app, ctx);

  const auth = runtimeAuth(ctx.store, ctx.diag);
  app.use(`${EXEC_BASE}/*`, auth);
  app.use(MCP_PATH, auth);
  app.use(MCP_LEGACY_PATH, auth);

  app.get(`${EXEC_BASE}/catalog`, (c) => {
    const pinned = ctx.store.get(c.get('runtime').principal.authorizationId)?.catalog;
    if (!pinned) throw new ExecError('unavailable', 'the runtime authorization was revoked');
    return c.body(pinned.body, 200, { 'content-type': 'application/json' });
  });
  ctx.extraRoutes?.(app);
  return app;
}
