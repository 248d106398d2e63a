import { OPERATOR_READS, operatorReadOf, readRouteName } from '../../catalog/operator-reads.js';
import { type OperatorReadRoute, READ_ACTIONS } from '../../catalog/operator/reads.js';
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

/** The handlers of the operator read rows, by row name. */
type ReadHandlers = Pick<OperatorHandlers, OperatorReadRoute['name']>;

/**
 * `POST /api/v1/servers/{serverId}/reads/{domain}/{action}` with the action's
 * JSON input, one row per read action of catalog/operator-reads.ts, all
 * served by one handler: run by the same registered handler as Exec, after
 * the same validation (the action's generated validator, once), and out
 * through the same result gate, so paging (opaque cursors) and JSON are
 * Exec's. The operator token (checked by the app first) stands for a person,
 * not an agent; only reads are reachable, so no agent id is recorded anywhere.
 */
export function operatorReadHandlers(services: OperatorReadDeps): ReadHandlers {
  const run = async (
    domain: string,
    name: string,
    serverId: string,
    input: unknown,
  ): Promise<Response> => {
    const action = services.registry.get(domain, name);
    if (!action) throw new ExecError('not_found', 'no such operator read');
    const checked = action.check(input);
    if (!checked.ok) {
      throw new ExecError('validation_failed', 'the input does not match the action schema', {
        details: checked.details,
        detailsOmitted: checked.detailsOmitted,
      });
    }
    if (!operatorReadOf(domain, name, input)) {
      const ops = OPERATOR_READS.flatMap((r) =>
        r.descriptor.domain === domain && r.descriptor.action === name && 'op' in r ? [r.op] : [],
      );
      throw new ExecError(
        'forbidden',
        `${domain} ${name}: only the read ops ${ops.join(', ')} are open to the operator`,
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
  };
  return Object.fromEntries(
    READ_ACTIONS.map((d) => [
      readRouteName(d),
      ({ params, body }: { params: { serverId: string }; body: unknown }) =>
        run(d.domain, d.action, params.serverId, body),
    ]),
  ) as unknown as ReadHandlers;
}

/** A hint for a request to a read path no row serves (`.../reads/task/create`): what is open. */
export function operatorReadsHint(path: string): string | undefined {
  return /^\/api\/v1\/servers\/[^/]+\/reads\//.test(path)
    ? `Operator reads: ${OPERATOR_READS.map((r) => r.command.join(' ')).join(', ')}.`
    : undefined;
}
