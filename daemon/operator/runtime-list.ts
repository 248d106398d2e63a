import type { Hono } from 'hono';
import type { Authorization } from '../auth/authorization.js';
import type { AuthorizationStore } from '../auth/store.js';
import type { RuntimeEnv } from '../auth/principal.js';

/** One runtime authorization as the operator sees it: binding, state, token generations, in-flight calls. Never a token. */
export interface RuntimeView {
  readonly authorizationId: string;
  readonly serverId: string;
  readonly agentId: string;
  readonly runtime: string;
  readonly sessionId: string | null;
  readonly runId: string | null;
  readonly state: string;
  readonly inFlight: number;
  readonly generations: readonly { id: string; issuedAt: string; expiresAt: string }[];
}

function runtimeView(a: Authorization): RuntimeView {
  return {
    authorizationId: a.id,
    serverId: a.principal.serverId,
    agentId: a.principal.agentId,
    runtime: a.runtime,
    sessionId: a.principal.sessionId,
    runId: a.principal.runId,
    state: a.state,
    inFlight: a.inFlight,
    generations: a.generations.map((g) => ({
      id: g.id,
      issuedAt: new Date(g.issuedAtMs).toISOString(),
      expiresAt: new Date(g.expiresAtMs).toISOString(),
    })),
  };
}

/** `GET /api/v1/runtimes`: every authorization holding a lease, oldest first (operator token checked by the app). */
export function registerRuntimeListRoute(app: Hono<RuntimeEnv>, store: AuthorizationStore): void {
  app.get('/api/v1/runtimes', (c) =>
    c.json({ ok: true, data: { runtimes: store.leases().map(runtimeView) } }),
  );
}
