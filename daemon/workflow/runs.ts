import { LIMITS, clipJson } from '../../catalog/limits.js';
import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { workflowRun } from '../../catalog/domains/workflow.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from '../store/context.js';
import { newId } from '../store/ids.js';
import { createdAtPage, keysetPage, type Condition } from '../store/keyset-page.js';
import type { Caller } from '../store/server-api.js';
import type { Sql } from '../store/sql.js';
import { runOp } from './run-op.js';
import type { WorkflowPlans } from './plans.js';
import {
  logOf,
  runOf,
  stepOf,
  type LogRow,
  type PlanRow,
  type RunRow,
  type StepRow,
} from './rows.js';

type In = InputOf<typeof workflowRun>;
type Out = OutputOf<typeof workflowRun>;
/** The plan a manual trigger starts (run start {triggerId}), read with the op's handle. */
type ManualTrigger = (q: Sql, c: Caller, id: string) => Promise<PlanRow>;

const BY_ID = 'SELECT * FROM wf_runs WHERE id = ? AND server_id = ?';
const STEPS_OF = 'SELECT * FROM wf_steps WHERE run_id = ? ORDER BY idx';
const INSERT_RUN = `INSERT INTO wf_runs (id, server_id, plan_id, plan_version, trigger_id, status, started_by, revision, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, 'running', ?, 1, ?, ?)`;
const INSERT_STEP =
  'INSERT INTO wf_steps (id, run_id, idx, name, status, note, revision, updated_at) VALUES (?, ?, ?, ?, ?, NULL, 1, ?)';
const INSERT_LOG =
  'INSERT INTO wf_logs (run_id, step_id, event, detail, at) VALUES (?, ?, ?, ?, ?)';
const SET_RUN =
  'UPDATE wf_runs SET status = ?, finished_at = ?, revision = revision + 1, updated_at = ? WHERE id = ?';
const LOGS_FIRST = 'SELECT * FROM wf_logs WHERE run_id = ? ORDER BY seq LIMIT ?';
const LOGS_AFTER = 'SELECT * FROM wf_logs WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?';

/** Runs of published plan versions, their steps and their log. */
export class WorkflowRuns {
  constructor(
    private readonly s: StoreContext,
    private readonly plans: WorkflowPlans,
  ) {}

  /** A run of this server as it stands (undefined when there is none). */
  byId(q: Sql, serverId: string, id: string): Promise<RunRow | undefined> {
    return q.get<RunRow>(BY_ID, [id, serverId]);
  }

  stepsOf(q: Sql, runId: string): Promise<StepRow[]> {
    return q.all<StepRow>(STEPS_OF, [runId]);
  }

  async log(
    q: Sql,
    runId: string,
    stepId: string | null,
    event: string,
    detail: string | null,
  ): Promise<void> {
    // Details quote step names and notes; cut to the bound the log schema states.
    await q.run(INSERT_LOG, [
      runId,
      stepId,
      clipJson(event, LIMITS.logEvent),
      detail === null ? null : clipJson(detail, LIMITS.logDetail),
      this.s.now(),
    ]);
  }

  /** Ends a run (completed, failed or cancelled) with a log line. */
  async finish(
    q: Sql,
    run: RunRow,
    status: 'completed' | 'failed' | 'cancelled',
    detail: string | null,
  ): Promise<void> {
    const now = this.s.now();
    await q.run(SET_RUN, [status, now, now, run.id]);
    await this.log(q, run.id, null, `run_${status}`, detail);
  }

  async run(q: Sql, serverId: string, id: string): Promise<RunRow> {
    const row = await this.byId(q, serverId, id);
    if (!row)
      throw new ExecError('not_found', `run ${id} not found`, {
        hint: 'List runs with workflow run {"op":"list"}.',
      });
    return row;
  }

  /** Starts a run of the plan's published version: the first step ready, the rest pending. */
  async start(
    q: Sql,
    plan: PlanRow,
    triggerId: string | null,
    startedBy: string,
    detail: string | null,
  ): Promise<RunRow> {
    if (plan.status === 'archived')
      throw new ExecError('invalid_transition', `plan ${plan.id} is archived`);
    if (plan.published_version === null) {
      throw new ExecError('invalid_transition', `plan ${plan.id} has no published version`, {
        hint: 'Publish it with workflow plan {"op":"publish","id":...}.',
      });
    }
    const steps = await this.plans.version(q, plan.id, plan.published_version);
    const now = this.s.now();
    const id = newId('run');
    await q.run(INSERT_RUN, [
      id,
      plan.server_id,
      plan.id,
      plan.published_version,
      triggerId,
      startedBy,
      now,
      now,
    ]);
    for (const [i, st] of steps.entries())
      await q.run(INSERT_STEP, [newId('step'), id, i, st.name, i === 0 ? 'ready' : 'pending', now]);
    await this.log(
      q,
      id,
      null,
      'run_started',
      detail ?? `by ${startedBy}, plan version ${plan.published_version}`,
    );
    return (await this.byId(q, plan.server_id, id))!;
  }

  call(c: Caller, input: In, manualTrigger: ManualTrigger): Promise<Out> {
    return runOp(this.s, c, workflowRun, input as Record<string, unknown>, (q) =>
      this.apply(q, c, input, manualTrigger),
    );
  }

  private async apply(q: Sql, c: Caller, input: In, manualTrigger: ManualTrigger): Promise<Out> {
    switch (input.op) {
      case 'list':
        return this.list(q, c, input);
      case 'show': {
        const run = await this.run(q, c.serverId, input.id!);
        return { run: runOf(run), steps: (await this.stepsOf(q, run.id)).map(stepOf) };
      }
      case 'logs': {
        // The cursor is decoded before the run is looked up: a foreign cursor is a validation error first.
        const id = async () => (await this.run(q, c.serverId, input.id!)).id;
        const { items, ...more } = await keysetPage<LogRow>(
          this.s.cursors,
          { action: 'workflow/run.logs', scope: c.serverId, filter: { id: input.id } },
          input,
          (r) => [r.seq, r.run_id],
          async (n) => q.all<LogRow>(LOGS_FIRST, [await id(), n]),
          async (seq, _id, n) => q.all<LogRow>(LOGS_AFTER, [await id(), seq, n]),
        );
        return { logs: items.map(logOf), ...more };
      }
      case 'start': {
        const plan =
          input.planId !== undefined
            ? await this.plans.plan(q, c.serverId, input.planId)
            : await manualTrigger(q, c, input.triggerId!);
        const run = await this.start(q, plan, input.triggerId ?? null, `agent:${c.agentId}`, null);
        return { run: runOf(run), steps: (await this.stepsOf(q, run.id)).map(stepOf) };
      }
      case 'cancel': {
        const run = await this.run(q, c.serverId, input.id!);
        if (run.status !== 'running')
          throw new ExecError('invalid_transition', `run ${run.id} is already ${run.status}`);
        await this.finish(q, run, 'cancelled', `by agent:${c.agentId}`);
        return { run: runOf((await this.byId(q, c.serverId, run.id))!) };
      }
    }
  }

  private async list(q: Sql, c: Caller, input: In): Promise<Out> {
    const where: Condition[] = [['server_id = ?', c.serverId]];
    if (input.planId !== undefined) where.push(['plan_id = ?', input.planId]);
    if (input.status !== undefined) where.push(['status = ?', input.status]);
    const { items, ...more } = await createdAtPage<RunRow>(
      q,
      this.s.cursors,
      {
        action: 'workflow/run.list',
        scope: c.serverId,
        filter: { planId: input.planId, status: input.status },
      },
      input,
      'SELECT * FROM wf_runs',
      where,
    );
    return { runs: items.map(runOf), ...more };
  }
}
