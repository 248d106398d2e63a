import {
  workflowPlan,
  workflowRun,
  workflowStep,
  workflowTrigger,
} from '../../catalog/domains/workflow.js';
import type { StoreContext } from '../store/context.js';
import { storeDomain } from '../store/domain.js';
import { WorkflowPlans } from './plans.js';
import { WorkflowRuns } from './runs.js';
import { WorkflowSteps } from './steps.js';
import { WorkflowTriggers } from './triggers.js';

/** The workflow domain of the embedded server: plans, triggers, runs, steps. */
class WorkflowStore {
  readonly plans: WorkflowPlans;
  readonly runs: WorkflowRuns;
  readonly steps: WorkflowSteps;
  /** Also a scheduler source (schedule triggers) and the message hook (message triggers). */
  readonly triggers: WorkflowTriggers;

  constructor(s: StoreContext) {
    this.plans = new WorkflowPlans(s);
    this.runs = new WorkflowRuns(s, this.plans);
    this.steps = new WorkflowSteps(s, this.runs);
    this.triggers = new WorkflowTriggers(s, this.plans, this.runs);
  }
}

/** The workflow domain of the team server; each action dispatches on its op. */
export const workflowDomain = storeDomain(
  (ctx) => new WorkflowStore(ctx),
  (on) => [
    on(workflowPlan, (s, c, i) => s.plans.call(c, i)),
    on(workflowTrigger, (s, c, i) => s.triggers.call(c, i)),
    on(workflowRun, (s, c, i) =>
      s.runs.call(c, i, (q, cc, id) => s.triggers.manualPlan(q, cc, id)),
    ),
    on(workflowStep, (s, c, i) => s.steps.call(c, i)),
  ],
);
