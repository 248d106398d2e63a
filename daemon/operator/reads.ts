import { operatorReadOf, OPERATOR_READS } from '../../catalog/operator-reads.js';
import { ExecError } from '../errors/exec-error.js';
import type { Principal } from '../auth/principal.js';
import type { ResultGate } from '../results/gate.js';
import type { Registry } from '../exec/registry.js';
import type { HandlerContext } from '../exec/context.js';
import type { Caller, ServerApi } from '../store/server-api.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';

/** What the operator reads use, and nothing else (the daemon's Services satisfies it). */
interface OperatorReadDeps {
  readonly registry: Registry;
  readonly gate: ResultGate;
  readonly profile: HandlerContext['profile'];
  readonly cursors: HandlerContext['cursors'];
  server(caller: Caller): ServerApi;
}

/** Operator requests have no authorization to revoke. */
const NEVER = new AbortController().signal;

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/**
 * `POST /api/v1/servers/{serverId}/reads/{domain}/{action}` with the action's
 * JSON input: the reads of catalog/operator-reads.ts for a person, run by the
 * same registered handler as Exec, after the same validation, and out through
 * the same result gate, so paging (opaque cursors) and JSON are Exec's. The
 * operator token (checked by the app first) stands for a person, not an
 * agent; only reads are reachable, so no agent id is recorded anywhere.
 */
export function operatorReadHandlers(
  services: OperatorReadDeps,
): Pick<OperatorHandlers, 'reads.run'> {
  return {
    'reads.run': async ({ params: { serverId, domain, action: name }, body: input }) => {
      const action = services.registry.get(domain, name);
      if (!action || !OPERATOR_READS.some((r) => r.domain === domain && r.action === name)) {
        throw new ExecError('not_found', 'no such operator read', {
          hint: `Operator reads: ${OPERATOR_READS.map((r) => r.command.join(' ')).join(', ')}.`,
        });
      }
      const checked = action.check(input);
      if (!checked.ok) {
        throw new ExecError('validation_failed', 'the input does not match the action schema', {
          details: checked.details,
          detailsOmitted: checked.detailsOmitted,
        });
      }
      if (!operatorReadOf(domain, name, input)) {
        const ops = OPERATOR_READS.filter((r) => r.domain === domain && r.action === name);
        throw new ExecError(
          'forbidden',
          `${domain} ${name}: only the read ops ${ops.map((r) => r.op).join(', ')} are open to the operator`,
        );
      }
      const principal: Principal = {
        authorizationId: 'operator',
        serverId,
        agentId: 'operator',
        sessionId: null,
        runId: null,
        workdir: null,
        primaryThreadId: null,
        turn: null,
      };
      // A failure other than an ExecError reaches the app's onError: logged there, `internal` to the person.
      const data = await action.handler(input, {
        principal,
        signal: NEVER,
        server: services.server({ serverId, agentId: 'operator' }),
        profile: services.profile,
        cursors: services.cursors,
      });
      const out = services.gate.json({ ...action.entry.inventory, risk: 'read' }, input, data);
      if (!out.ok) throw out.error;
      return services.gate.respond(out.body, 200, JSON_HEADERS);
    },
  };
}
