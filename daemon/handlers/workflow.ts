import {
  workflowPlan,
  workflowRun,
  workflowStep,
  workflowTrigger,
} from '../../catalog/domains/workflow.js';
import type { Registry } from '../exec/registry.js';

/** Workflows live on the team server; each action dispatches on its op there. */
export function registerWorkflowHandlers(r: Registry): void {
  r.registerJSON(workflowPlan, (input, ctx) => ctx.server.workflowPlan(input));
  r.registerJSON(workflowTrigger, (input, ctx) => ctx.server.workflowTrigger(input));
  r.registerJSON(workflowRun, (input, ctx) => ctx.server.workflowRun(input));
  r.registerJSON(workflowStep, (input, ctx) => ctx.server.workflowStep(input));
}
