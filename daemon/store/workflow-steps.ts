import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { workflowStep } from '../../catalog/domains/workflow.js';
import { ExecError } from '../errors.js';
import type { StoreContext } from './context.js';
import { keysetPage } from './keyset-page.js';
import type { Caller } from './server-api.js';
import { checkOpFields, runOp } from './workflow-ops.js';
import type { WorkflowRuns } from './workflow-runs.js';
import { runOf, stepOf, type StepRow } from './workflow-rows.js';

type In = InputOf<typeof workflowStep>;
type Out = OutputOf<typeof workflowStep>;
type Status = StepRow['status'];

/** Which states each step op may leave from, and where it goes. Everything else is invalid_transition. */
const TRANSITIONS: Record<'complete' | 'fail' | 'pause' | 'park', { from: readonly Status[]; to: Status }> = {
  complete: { from: ['ready', 'paused', 'parked'], to: 'completed' },
  fail: { from: ['ready', 'paused', 'parked'], to: 'failed' },
  pause: { from: ['ready'], to: 'paused' },
  park: { from: ['ready', 'paused'], to: 'parked' },
};

/** Step state machine of a running run; each transition is logged with the acting agent. */
export class WorkflowSteps {
  private readonly byId;
  private readonly setStep;
  private readonly next;
  private readonly first;
  private readonly after;

  constructor(private readonly s: StoreContext, private readonly runs: WorkflowRuns) {
    this.byId = s.db.prepare<[string, string], StepRow>(
      'SELECT st.* FROM wf_steps st JOIN wf_runs r ON r.id = st.run_id WHERE st.id = ? AND r.server_id = ?',
    );
    this.setStep = s.db.prepare('UPDATE wf_steps SET status = ?, note = ?, revision = revision + 1, updated_at = ? WHERE id = ?');
    this.next = s.db.prepare<[string, number], StepRow>("SELECT * FROM wf_steps WHERE run_id = ? AND idx = ? AND status = 'pending'");
    this.first = s.db.prepare<[string, number], StepRow>('SELECT * FROM wf_steps WHERE run_id = ? ORDER BY idx LIMIT ?');
    this.after = s.db.prepare<[string, number, number], StepRow>('SELECT * FROM wf_steps WHERE run_id = ? AND idx > ? ORDER BY idx LIMIT ?');
  }

  call(c: Caller, input: In): Out {
    return runOp(this.s, c, 'step', input as Record<string, unknown>, () => this.apply(c, input));
  }

  private step(c: Caller, id: string): StepRow {
    const row = this.byId.get(id, c.serverId);
    if (!row) throw new ExecError('not_found', `step ${id} not found`, { hint: 'List a run\'s steps with workflow step {"op":"list","runId":...}.' });
    return row;
  }

  private apply(c: Caller, input: In): Out {
    if (input.op === 'list') {
      checkOpFields(input, ['runId'], [], true);
      // The cursor is decoded before the run is looked up: a foreign cursor is a validation error first.
      const runId = () => this.runs.run(c.serverId, input.runId!).id;
      const { items, ...more } = keysetPage<StepRow>(
        this.s.cursors, { action: 'workflow/step.list', scope: c.serverId, filter: { runId: input.runId } }, input,
        (r) => [r.idx, r.id],
        (n) => this.first.all(runId(), n),
        (idx, _id, n) => this.after.all(runId(), idx, n),
      );
      return { steps: items.map(stepOf), ...more };
    }
    if (input.op === 'get') {
      checkOpFields(input, ['id'], []);
      return { step: stepOf(this.step(c, input.id!)) };
    }
    checkOpFields(input, ['id'], ['note']);
    const step = this.step(c, input.id!);
    const run = this.runs.run(c.serverId, step.run_id);
    const t = TRANSITIONS[input.op];
    if (run.status !== 'running') throw new ExecError('invalid_transition', `run ${run.id} is ${run.status}; its steps no longer change`);
    if (!t.from.includes(step.status)) {
      throw new ExecError('invalid_transition', `step ${step.id} is ${step.status}; ${input.op} needs ${t.from.join(' or ')}`);
    }
    const now = this.s.now();
    this.setStep.run(t.to, input.note ?? null, now, step.id);
    this.runs.log(run.id, step.id, `step_${t.to}`, input.note ? `${step.name} by agent:${c.agentId}: ${input.note}` : `${step.name} by agent:${c.agentId}`);
    if (t.to === 'failed') this.runs.finish(run, 'failed', `step ${step.name} failed`);
    if (t.to === 'completed') {
      const next = this.next.get(run.id, step.idx + 1);
      if (next) {
        this.setStep.run('ready', null, now, next.id);
        this.runs.log(run.id, next.id, 'step_ready', next.name);
      } else {
        this.runs.finish(run, 'completed', null);
      }
    }
    return { step: stepOf(this.byId.get(step.id, c.serverId)!), run: runOf(this.runs.byId.get(run.id, c.serverId)!) };
  }
}
