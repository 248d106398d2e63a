import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { ResultGate } from '../results/gate.js';
import type { DelegatedScopeStore } from '../store/delegated-scopes.js';
import type { ToolRegistry } from '../tools/registry.js';
import { clientToolsNow } from './exposure.js';

/**
 * GET /api/v1/client-tools/scopes[?session=ID]: the saved delegated scopes,
 * each tool marked with whether it is offered now with the fingerprint the
 * scope saved (what a call from that session would be allowed).
 */
export function scopeReadHandlers(deps: {
  readonly store: DelegatedScopeStore;
  readonly registry: ToolRegistry;
  readonly gate: ResultGate;
}): Pick<OperatorHandlers, 'clientTools.scopes'> {
  return {
    'clientTools.scopes': async ({ query }) => {
      const now = new Map(clientToolsNow(deps.registry, undefined).map((t) => [t.name, t]));
      const sessions = await deps.store.list(query.session);
      return deps.gate.ok({
        sessions: sessions.map((s) => ({
          agent: s.agentId,
          session: s.sessionId,
          parent: s.parentId,
          task: s.taskId,
          kind: s.kind,
          created_at: s.createdAt,
          tools: s.tools.map((t) => ({
            ...t,
            current: now.get(t.name)?.fingerprint === t.fingerprint,
          })),
        })),
      });
    },
  };
}
