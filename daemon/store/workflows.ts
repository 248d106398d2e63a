import type { StoreContext } from './context.js';
import type { Caller, ServerApi } from './server-api.js';
import { WorkflowPlans } from './workflow-plans.js';
import { WorkflowRuns } from './workflow-runs.js';
import { WorkflowSteps } from './workflow-steps.js';
import { WorkflowTriggers } from './workflow-triggers.js';

type WorkflowApi = Pick<
  ServerApi,
  'workflowPlan' | 'workflowTrigger' | 'workflowRun' | 'workflowStep'
>;

/** The workflow domain of the embedded server: plans, triggers, runs, steps. */
export class WorkflowStore {
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

  forCaller(c: Caller): WorkflowApi {
    return {
      workflowPlan: async (i) => this.plans.call(c, i),
      workflowTrigger: async (i) => this.triggers.call(c, i),
      workflowRun: async (i) =>
        this.runs.call(c, i, (q, cc, id) => this.triggers.manualPlan(q, cc, id)),
      workflowStep: async (i) => this.steps.call(c, i),
    };
  }
}
