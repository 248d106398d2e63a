import type { Authorization } from '../auth/authorization.js';
import type { RuntimeView } from '../../catalog/operator/runtimes.js';

/** What `GET /api/v1/runtimes` lists of one authorization. */

export function runtimeView(a: Authorization): RuntimeView {
  return {
    authorizationId: a.id,
    serverId: a.principal.serverId,
    agentId: a.principal.agentId,
    runtime: a.runtime,
    sessionId: a.principal.sessionId,
    runId: a.principal.runId,
    sessionName: a.principal.sessionName ?? null,
    state: a.state,
    inFlight: a.inFlight,
    generations: a.generations.map((g) => ({
      id: g.id,
      issuedAt: new Date(g.issuedAtMs).toISOString(),
      expiresAt: new Date(g.expiresAtMs).toISOString(),
    })),
  };
}
