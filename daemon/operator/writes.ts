import type { OutputOf } from '../../catalog/descriptor.js';
import { taskGet } from '../../catalog/domains/task.js';
import { closedOutcome } from '../../catalog/call-outcome.js';
import { profilePerson } from '../profile/person.js';
import { type OperatorWriteRoute, WRITE_ACTIONS } from '../../catalog/operator/writes.js';
import { writeRouteName } from '../../catalog/operator-writes.js';
import type { Principal } from '../auth/principal.js';
import type { AuditTrail } from '../audit/trail.js';
import { ExecError, errorBody } from '../errors/exec-error.js';
import type { HandlerContext } from '../exec/context.js';
import type { Registry } from '../exec/registry.js';
import { checkSelectors } from '../exec/selectors.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { ResultGate } from '../results/gate.js';
import type { Caller, ServerApi } from '../store/server-api.js';
import type { QueuedTurn } from '../turns/service.js';
import type { TaskAssignments } from './task-assignment.js';

type Task = OutputOf<typeof taskGet>['task'];

/** What the operator writes use (the daemon's Services satisfies most of it). */
interface OperatorWriteDeps {
  readonly registry: Registry;
  readonly gate: ResultGate;
  readonly profile: HandlerContext['profile'];
  readonly cursors: HandlerContext['cursors'];
  server(caller: Caller): ServerApi;
  /** The audit trail, or null when audit.json turns it off. */
  readonly audit: AuditTrail | null;
  readonly now: () => number;
  readonly assignments: TaskAssignments;
}

const NEVER = new AbortController().signal;
const JSON_HEADERS = { 'content-type': 'application/json' } as const;

type WriteHandlers = Pick<OperatorHandlers, OperatorWriteRoute['name']>;

/**
 * `POST /api/v1/servers/{serverId}/writes/{domain}/{action}?as=human:<handle>`
 * with the action's JSON input, one row per write action of
 * catalog/operator-writes.ts, all served by one handler: the action's own
 * validation and selector check, the same registered handler as Exec with
 * the person as the caller (so the idempotency key is the person's), the
 * same result gate; then, for a task, what a person's assignment starts
 * (TaskAssignments); and one audit row naming the person, whatever the outcome.
 */
export function operatorWriteHandlers(deps: OperatorWriteDeps): WriteHandlers {
  const run = async (
    domain: string,
    name: string,
    serverId: string,
    person: string,
    input: unknown,
  ): Promise<Response> => {
    const at = deps.now();
    const started = performance.now();
    let outcome: Parameters<AuditTrail['person']>[0]['outcome'] = 'ok';
    let answer: string | undefined;
    try {
      const res = await write(domain, name, serverId, person, input, at);
      answer = res.body;
      return deps.gate.respond(res.body, 200, JSON_HEADERS);
    } catch (err) {
      outcome = closedOutcome(err instanceof ExecError ? err.code : undefined, 'internal');
      answer = JSON.stringify({ ok: false, error: errorBody(err) });
      throw err;
    } finally {
      deps.audit?.person({
        serverId,
        person,
        tool: `${domain}/${name}`,
        at,
        elapsedMs: performance.now() - started,
        outcome,
        requestBytes: Buffer.byteLength(JSON.stringify(input) ?? ''),
        resultBytes: answer === undefined ? 0 : Buffer.byteLength(answer),
        input,
        result: answer,
      });
    }
  };

  const write = async (
    domain: string,
    name: string,
    serverId: string,
    person: string,
    input: unknown,
    at: number,
  ) => {
    const action = deps.registry.get(domain, name);
    if (!action) throw new ExecError('not_found', 'no such operator write');
    const checked = action.check(input);
    if (!checked.ok) {
      throw new ExecError('validation_failed', 'the input does not match the action schema', {
        details: checked.details,
        detailsOmitted: checked.detailsOmitted,
      });
    }
    const selected = checkSelectors(input, undefined, () => undefined);
    if (selected instanceof ExecError) throw selected;
    const principal: Principal = {
      authorizationId: 'operator',
      serverId,
      agentId: person,
      sessionId: null,
      runId: null,
      workdir: null,
      primaryThreadId: null,
      turn: null,
    };
    const server = deps.server({ serverId, agentId: person });
    const isTask = domain === 'task';
    const before =
      isTask && name === 'update' ? await taskOrNull(server, (input as { id: string }).id) : null;
    // A failure other than an ExecError reaches the app's onError: logged there, `internal` to the person.
    const data = (await action.handler(input, {
      principal,
      signal: NEVER,
      server,
      profile: deps.profile,
      cursors: deps.cursors,
    })) as Record<string, unknown>;
    let turns: QueuedTurn[] | undefined;
    if (isTask) {
      const task = data.task as Task;
      // A replayed create answers with the task as first created, before this request began.
      const fresh =
        name !== 'create' || selectorOf(input) === undefined || Date.parse(task.createdAt) >= at;
      turns = await deps.assignments.written(serverId, person, before, task, fresh);
    }
    const out = deps.gate.json(action.entry.inventory, input, turns ? { ...data, turns } : data);
    if (!out.ok) throw out.error;
    return out;
  };

  return Object.fromEntries(
    WRITE_ACTIONS.map((d) => [
      writeRouteName(d),
      ({
        params,
        query,
        body,
      }: {
        params: { serverId: string };
        query: { as?: string };
        body: unknown;
      }) =>
        run(
          d.domain,
          d.action,
          params.serverId,
          query.as ?? profilePerson(deps.profile.profile),
          body,
        ),
    ]),
  ) as unknown as WriteHandlers;
}

async function taskOrNull(server: ServerApi, id: string): Promise<Task | null> {
  try {
    return (await server.call(taskGet, { id })).task;
  } catch (err) {
    if (err instanceof ExecError && err.code === 'not_found') return null;
    throw err;
  }
}

/** The idempotency key of a write, under either of its names. */
function selectorOf(input: unknown): string | undefined {
  const i = input as { idempotencyKey?: string; requestId?: string };
  return i.idempotencyKey ?? i.requestId;
}
