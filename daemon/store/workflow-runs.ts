import { LIMITS, clipJson } from '../../catalog/limits.js';
import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { workflowRun } from '../../catalog/domains/workflow.js';
import { ExecError } from '../errors.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { createdAtQueries, keysetPage, type CreatedPageQueries } from './keyset-page.js';
import type { Caller } from './server-api.js';
import { checkOpFields, runOp } from './workflow-ops.js';
import type { WorkflowPlans } from './workflow-plans.js';
import { logOf, runOf, stepOf, type LogRow, type PlanRow, type RunRow, type StepRow } from './workflow-rows.js';

type In = InputOf<typeof workflowRun>;
type Out = OutputOf<typeof workflowRun>;

/** Runs of published plan versions, their steps and their log. */
export class WorkflowRuns {
  readonly byId;
  readonly stepsOf;
  private readonly insertRun;
  private readonly insertStep;
  private readonly insertLog;
  private readonly setRun;
  private readonly logsFirst;
  private readonly logsAfter;
  private readonly lists = new Map<string, CreatedPageQueries<RunRow>>();

  constructor(private readonly s: StoreContext, private readonly plans: WorkflowPlans) {
    this.byId = s.db.prepare<[string, string], RunRow>('SELECT * FROM wf_runs WHERE id = ? AND server_id = ?');
    this.stepsOf = s.db.prepare<[string], StepRow>('SELECT * FROM wf_steps WHERE run_id = ? ORDER BY idx');
    this.insertRun = s.db.prepare(
      `INSERT INTO wf_runs (id, server_id, plan_id, plan_version, trigger_id, status, started_by, revision, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?, 1, ?, ?)`,
    );
    this.insertStep = s.db.prepare('INSERT INTO wf_steps (id, run_id, idx, name, status, note, revision, updated_at) VALUES (?, ?, ?, ?, ?, NULL, 1, ?)');
    this.insertLog = s.db.prepare('INSERT INTO wf_logs (run_id, step_id, event, detail, at) VALUES (?, ?, ?, ?, ?)');
    this.setRun = s.db.prepare('UPDATE wf_runs SET status = ?, finished_at = ?, revision = revision + 1, updated_at = ? WHERE id = ?');
    this.logsFirst = s.db.prepare<[string, number], LogRow>('SELECT * FROM wf_logs WHERE run_id = ? ORDER BY seq LIMIT ?');
    this.logsAfter = s.db.prepare<[string, number, number], LogRow>('SELECT * FROM wf_logs WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  }

  log(runId: string, stepId: string | null, event: string, detail: string | null): void {
    // Details quote step names and notes; cut to the bound the log schema states.
    this.insertLog.run(runId, stepId, clipJson(event, LIMITS.logEvent), detail === null ? null : clipJson(detail, LIMITS.logDetail), this.s.now());
  }

  /** Ends a run (completed, failed or cancelled) with a log line. */
  finish(run: RunRow, status: 'completed' | 'failed' | 'cancelled', detail: string | null): void {
    const now = this.s.now();
    this.setRun.run(status, now, now, run.id);
    this.log(run.id, null, `run_${status}`, detail);
  }

  run(serverId: string, id: string): RunRow {
    const row = this.byId.get(id, serverId);
    if (!row) throw new ExecError('not_found', `run ${id} not found`, { hint: 'List runs with workflow run {"op":"list"}.' });
    return row;
  }

  /** Starts a run of the plan's published version: the first step ready, the rest pending. */
  start(plan: PlanRow, triggerId: string | null, startedBy: string, detail: string | null): RunRow {
    if (plan.status === 'archived') throw new ExecError('invalid_transition', `plan ${plan.id} is archived`);
    if (plan.published_version === null) {
      throw new ExecError('invalid_transition', `plan ${plan.id} has no published version`, { hint: 'Publish it with workflow plan {"op":"publish","id":...}.' });
    }
    const steps = this.plans.version(plan.id, plan.published_version);
    const now = this.s.now();
    const id = newId('run');
    this.insertRun.run(id, plan.server_id, plan.id, plan.published_version, triggerId, startedBy, now, now);
    steps.forEach((st, i) => this.insertStep.run(newId('step'), id, i, st.name, i === 0 ? 'ready' : 'pending', now));
    this.log(id, null, 'run_started', detail ?? `by ${startedBy}, plan version ${plan.published_version}`);
    return this.byId.get(id, plan.server_id)!;
  }

  call(c: Caller, input: In, manualTrigger: (c: Caller, id: string) => PlanRow): Out {
    return runOp(this.s, c, 'run', input as Record<string, unknown>, () => this.apply(c, input, manualTrigger));
  }

  private apply(c: Caller, input: In, manualTrigger: (c: Caller, id: string) => PlanRow): Out {
    switch (input.op) {
      case 'list':
        checkOpFields(input, [], ['planId', 'status'], true);
        return this.list(c, input);
      case 'show': {
        checkOpFields(input, ['id'], []);
        const run = this.run(c.serverId, input.id!);
        return { run: runOf(run), steps: this.stepsOf.all(run.id).map(stepOf) };
      }
      case 'logs': {
        checkOpFields(input, ['id'], [], true);
        // The cursor is decoded before the run is looked up: a foreign cursor is a validation error first.
        const id = () => this.run(c.serverId, input.id!).id;
        const { items, ...more } = keysetPage<LogRow>(
          this.s.cursors, { action: 'workflow/run.logs', scope: c.serverId, filter: { id: input.id } }, input,
          (r) => [r.seq, r.run_id],
          (n) => this.logsFirst.all(id(), n),
          (seq, _id, n) => this.logsAfter.all(id(), seq, n),
        );
        return { logs: items.map(logOf), ...more };
      }
      case 'start': {
        checkOpFields(input, [], ['planId', 'triggerId']);
        if ((input.planId === undefined) === (input.triggerId === undefined)) {
          throw new ExecError('validation_failed', 'start needs exactly one of planId or triggerId', { details: [{ path: '', message: 'give planId or triggerId' }] });
        }
        const plan = input.planId !== undefined ? this.plans.plan(c.serverId, input.planId) : manualTrigger(c, input.triggerId!);
        const run = this.start(plan, input.triggerId ?? null, `agent:${c.agentId}`, null);
        return { run: runOf(run), steps: this.stepsOf.all(run.id).map(stepOf) };
      }
      case 'cancel': {
        checkOpFields(input, ['id'], []);
        const run = this.run(c.serverId, input.id!);
        if (run.status !== 'running') throw new ExecError('invalid_transition', `run ${run.id} is already ${run.status}`);
        this.finish(run, 'cancelled', `by agent:${c.agentId}`);
        return { run: runOf(this.byId.get(run.id, c.serverId)!) };
      }
    }
  }

  private list(c: Caller, input: In): Out {
    const where = ['server_id = ?'];
    const args: unknown[] = [c.serverId];
    if (input.planId !== undefined) (where.push('plan_id = ?'), args.push(input.planId));
    if (input.status !== undefined) (where.push('status = ?'), args.push(input.status));
    const q = createdAtQueries<RunRow>(this.s.db, this.lists, 'SELECT * FROM wf_runs', where.join(' AND '));
    const { items, ...more } = keysetPage<RunRow>(
      this.s.cursors, { action: 'workflow/run.list', scope: c.serverId, filter: { planId: input.planId, status: input.status } }, input,
      (r) => [r.created_at, r.id],
      (n) => q.first.all(...args, n),
      (at, id, n) => q.after.all(...args, at, at, id, n),
    );
    return { runs: items.map(runOf), ...more };
  }
}
