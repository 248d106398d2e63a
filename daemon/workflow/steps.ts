import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { workflowStep } from '../../catalog/domains/workflow.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from '../store/context.js';
import { keysetPage } from '../store/keyset-page.js';
import type { Caller } from '../store/server-api.js';
import type { Sql } from '../store/sql.js';
import { runOp } from './run-op.js';
import type { WorkflowRuns } from './runs.js';
import { runOf, stepOf, type StepRow } from './rows.js';

type In = InputOf<typeof workflowStep>;
type Out = OutputOf<typeof workflowStep>;
type Status = StepRow['status'];

/** Which states each step op may leave from, and where it goes. Everything else is invalid_transition. */
const TRANSITIONS: Record<
  'complete' | 'fail' | 'pause' | 'park',
  { from: readonly Status[]; to: Status }
> = {
  complete: { from: ['ready', 'paused', 'parked'], to: 'completed' },
  fail: { from: ['ready', 'paused', 'parked'], to: 'failed' },
  pause: { from: ['ready'], to: 'paused' },
  park: { from: ['ready', 'paused'], to: 'parked' },
};

const BY_ID =
  'SELECT st.* FROM wf_steps st JOIN wf_runs r ON r.id = st.run_id WHERE st.id = ? AND r.server_id = ?';
const SET_STEP =
  'UPDATE wf_steps SET status = ?, note = ?, revision = revision + 1, updated_at = ? WHERE id = ?';
const NEXT = "SELECT * FROM wf_steps WHERE run_id = ? AND idx = ? AND status = 'pending'";
const FIRST = 'SELECT * FROM wf_steps WHERE run_id = ? ORDER BY idx LIMIT ?';
const AFTER = 'SELECT * FROM wf_steps WHERE run_id = ? AND idx > ? ORDER BY idx LIMIT ?';

/** Step state machine of a running run; each transition is logged with the acting agent. */
export class WorkflowSteps {
  constructor(
    private readonly s: StoreContext,
    private readonly runs: WorkflowRuns,
  ) {}

  call(c: Caller, input: In): Promise<Out> {
    return runOp(this.s, c, workflowStep, input as Record<string, unknown>, (q) =>
      this.apply(q, c, input),
    );
  }

  private async step(q: Sql, c: Caller, id: string): Promise<StepRow> {
    const row = await q.get<StepRow>(BY_ID, [id, c.serverId]);
    if (!row)
      throw new ExecError('not_found', `step ${id} not found`, {
        hint: 'List a run\'s steps with workflow step {"op":"list","runId":...}.',
      });
    return row;
  }

  private async apply(q: Sql, c: Caller, input: In): Promise<Out> {
    if (input.op === 'list') {
      // The cursor is decoded before the run is looked up: a foreign cursor is a validation error first.
      const runId = async () => (await this.runs.run(q, c.serverId, input.runId!)).id;
      const { items, ...more } = await keysetPage<StepRow>(
        this.s.cursors,
        { action: 'workflow/step.list', scope: c.serverId, filter: { runId: input.runId } },
        input,
        (r) => [r.idx, r.id],
        async (n) => q.all<StepRow>(FIRST, [await runId(), n]),
        async (idx, _id, n) => q.all<StepRow>(AFTER, [await runId(), idx, n]),
      );
      return { steps: items.map(stepOf), ...more };
    }
    if (input.op === 'get') {
      return { step: stepOf(await this.step(q, c, input.id!)) };
    }
    const step = await this.step(q, c, input.id!);
    const run = await this.runs.run(q, c.serverId, step.run_id);
    const t = TRANSITIONS[input.op];
    if (run.status !== 'running')
      throw new ExecError(
        'invalid_transition',
        `run ${run.id} is ${run.status}; its steps no longer change`,
      );
    if (!t.from.includes(step.status)) {
      throw new ExecError(
        'invalid_transition',
        `step ${step.id} is ${step.status}; ${input.op} needs ${t.from.join(' or ')}`,
      );
    }
    const now = this.s.now();
    await q.run(SET_STEP, [t.to, input.note ?? null, now, step.id]);
    await this.runs.log(
      q,
      run.id,
      step.id,
      `step_${t.to}`,
      input.note
        ? `${step.name} by agent:${c.agentId}: ${input.note}`
        : `${step.name} by agent:${c.agentId}`,
    );
    if (t.to === 'failed') await this.runs.finish(q, run, 'failed', `step ${step.name} failed`);
    if (t.to === 'completed') {
      const next = await q.get<StepRow>(NEXT, [run.id, step.idx + 1]);
      if (next) {
        await q.run(SET_STEP, ['ready', null, now, next.id]);
        await this.runs.log(q, run.id, next.id, 'step_ready', next.name);
      } else {
        await this.runs.finish(q, run, 'completed', null);
      }
    }
    return {
      step: stepOf(await this.step(q, c, step.id)),
      run: runOf((await this.runs.byId(q, c.serverId, run.id))!),
    };
  }
}
