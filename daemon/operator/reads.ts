import type { Hono } from 'hono';
import { isEntityId, ENTITY_ID_RULE } from '../../catalog/ids.js';
import { operatorReadOf, OPERATOR_READS } from '../../catalog/operator-reads.js';
import { ExecError } from '../errors/exec-error.js';
import type { Principal } from '../auth/principal.js';
import { readJsonBody } from '../http/json-body.js';
import type { ResultGate } from '../results/gate.js';
import type { Registry } from '../exec/registry.js';
import type { HandlerContext } from '../exec/context.js';
import type { Caller, ServerApi } from '../store/server-api.js';
import type { Clock } from '../../lib/clock.js';
import type { RuntimeEnv } from '../auth/principal.js';

/** What the operator reads use, and nothing else (the daemon's Services satisfies it). */
interface OperatorReadDeps {
  readonly registry: Registry;
  readonly gate: ResultGate;
  readonly clock: Clock;
  readonly profile: HandlerContext['profile'];
  readonly cursors: HandlerContext['cursors'];
  readonly diag: (event: string, detail: Record<string, unknown>) => void;
  server(caller: Caller): ServerApi;
}

const OPERATOR_READ_PATH = '/api/v1/servers/:serverId/reads/:domain/:action';

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
export function registerOperatorReadRoutes(
  app: Hono<RuntimeEnv>,
  services: OperatorReadDeps,
): void {
  const fail = (err: ExecError) =>
    services.gate.respond(services.gate.errorEnvelope(err), err.status, JSON_HEADERS);
  app.post(OPERATOR_READ_PATH, async (c) => {
    const serverId = c.req.param('serverId') ?? '';
    const domain = c.req.param('domain') ?? '';
    const name = c.req.param('action') ?? '';
    if (!isEntityId(serverId))
      return fail(new ExecError('invalid_request', `the server id must be ${ENTITY_ID_RULE}`));
    const action = services.registry.get(domain, name);
    if (!action || !OPERATOR_READS.some((r) => r.domain === domain && r.action === name)) {
      return fail(
        new ExecError('not_found', 'no such operator read', {
          hint: `Operator reads: ${OPERATOR_READS.map((r) => r.command.join(' ')).join(', ')}.`,
        }),
      );
    }
    let input: unknown;
    try {
      input = await readJsonBody(c, services.clock);
    } catch (err) {
      return fail(
        err instanceof ExecError
          ? err
          : new ExecError('invalid_request', 'the body could not be read'),
      );
    }
    const checked = action.check(input);
    if (!checked.ok) {
      return fail(
        new ExecError('validation_failed', 'the input does not match the action schema', {
          details: checked.details,
          detailsOmitted: checked.detailsOmitted,
        }),
      );
    }
    if (!operatorReadOf(domain, name, input)) {
      return fail(
        new ExecError(
          'forbidden',
          `${domain} ${name}: only the read ops ${OPERATOR_READS.filter(
            (r) => r.domain === domain && r.action === name,
          )
            .map((r) => r.op)
            .join(', ')} are open to the operator`,
        ),
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
    let data: unknown;
    try {
      data = await action.handler(input, {
        principal,
        signal: NEVER,
        server: services.server({ serverId, agentId: 'operator' }),
        profile: services.profile,
        cursors: services.cursors,
      });
    } catch (err) {
      if (err instanceof ExecError) return fail(err);
      // The cause stays in the daemon's log (masked by its writer); the person sees the closed `internal` code only.
      services.diag('operator_read_failed', {
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
      return fail(new ExecError('internal', 'internal error'));
    }
    const out = services.gate.json({ ...action.entry.inventory, risk: 'read' }, input, data);
    if (!out.ok) return fail(out.error);
    return services.gate.respond(out.body, 200, JSON_HEADERS);
  });
}
