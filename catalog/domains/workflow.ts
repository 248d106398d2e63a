import { catalogDomain } from '../domain.js';
import { defineAction } from '../descriptor.js';
import { LIMITS } from '../limits.js';
import { WORKFLOW_OPS, WORKFLOW_OP_MATRIX, opInputRules, workflowOps } from '../workflow-ops.js';
import {
  cronSchema,
  idSchema,
  idempotencySelectorProps,
  pageInputProps,
  pageOutputProps,
  timeZoneSchema,
} from '../common.js';
import {
  logSchema,
  planDescriptionSchema,
  planNameSchema,
  planSchema,
  stepNoteSchema,
  planVersionSchema,
  runSchema,
  stepDefsSchema,
  stepSchema,
  triggerKindSchema,
  triggerSchema,
  validationSchema,
  wfTargetSchema,
} from './workflow-schemas.js';

/*
 * Each workflow action takes an `op`. Whether an op reads or changes data is
 * its `opRisk`, and which fields it takes are its input rules (`allOf`), both
 * from the op table (WORKFLOW_OPS, catalog/workflow-ops.ts); the
 * descriptor's risk states the worst case (side_effect). The generated
 * validator refuses a field an op does not take with validation_failed.
 */

const page = { ...pageInputProps } as const;

export const workflowPlan = defineAction({
  domain: 'workflow',
  action: 'plan',
  summary: 'Versioned workflow plans: list/show/version/validate; create/update/archive/publish.',
  help: 'validate reports the problems of a step list without saving it. An update with new steps makes a new version; publish makes a version (the latest by default) the one runs start from; an archived plan no longer changes.',
  example: {
    op: 'create',
    name: 'Release',
    steps: [{ name: 'build' }, { name: 'verify' }, { name: 'announce' }],
    idempotencyKey: 'release-plan',
  },
  risk: 'side_effect',
  opRisk: WORKFLOW_OP_MATRIX.plan,
  result: {
    hint: 'The result is larger than the result budget; one plan or version is bounded by the plan limits and has no smaller read.',
    next: { action: 'workflow plan', input: { op: 'show', id: '<plan id>' } },
  },
  receipt: {
    entity: 'plan',
    selectors: ['id', 'revision'],
    retrieval: 'workflow plan',
    retrievalInput: { op: 'show', id: '<id>' },
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['op'],
    properties: {
      op: { type: 'string', enum: workflowOps('plan') },
      id: idSchema,
      name: planNameSchema,
      description: planDescriptionSchema,
      steps: stepDefsSchema,
      version: { type: 'integer', minimum: 1 },
      status: { type: 'string', enum: ['draft', 'published', 'archived'] },
      ...page,
      ...idempotencySelectorProps,
    },
    allOf: opInputRules(WORKFLOW_OPS.plan),
  },
  output: {
    type: 'object',
    additionalProperties: false,
    properties: {
      plan: planSchema,
      version: planVersionSchema,
      plans: { type: 'array', items: planSchema },
      validation: validationSchema,
      ...pageOutputProps,
    },
  },
});

export const workflowTrigger = defineAction({
  domain: 'workflow',
  action: 'trigger',
  summary:
    'What starts runs (manual, schedule, message): list/show/validate; create/update/enable/disable/archive.',
  help: 'create {planId, kind, cron+timeZone for schedule, target for message}. A schedule trigger starts a run at each occurrence (one late run after downtime); a message trigger starts one for each message to its exact target.',
  example: {
    op: 'create',
    planId: 'plan_01J9Z3K8Q2',
    kind: 'schedule',
    cron: '0 9 * * 1',
    timeZone: 'UTC',
  },
  risk: 'side_effect',
  opRisk: WORKFLOW_OP_MATRIX.trigger,
  result: {
    hint: 'The result is larger than the result budget; one trigger is bounded by its input limits and has no smaller read.',
    next: { action: 'workflow trigger', input: { op: 'show', id: '<trigger id>' } },
  },
  receipt: {
    entity: 'trigger',
    selectors: ['id', 'revision'],
    retrieval: 'workflow trigger',
    retrievalInput: { op: 'show', id: '<id>' },
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['op'],
    properties: {
      op: { type: 'string', enum: workflowOps('trigger') },
      id: idSchema,
      planId: idSchema,
      kind: triggerKindSchema,
      cron: cronSchema,
      timeZone: timeZoneSchema,
      target: wfTargetSchema,
      ...page,
      ...idempotencySelectorProps,
    },
    allOf: opInputRules(WORKFLOW_OPS.trigger),
  },
  output: {
    type: 'object',
    additionalProperties: false,
    properties: {
      trigger: triggerSchema,
      triggers: { type: 'array', items: triggerSchema },
      validation: validationSchema,
      ...pageOutputProps,
    },
  },
});

export const workflowRun = defineAction({
  domain: 'workflow',
  action: 'run',
  summary: 'Workflow runs: list/show/logs; start/cancel.',
  help: "start {planId} or {triggerId} of a manual trigger runs the published version: its first step is ready, the others pending. show returns the run with its steps; logs pages the run's log oldest first.",
  example: { op: 'start', planId: 'plan_01J9Z3K8Q2', idempotencyKey: 'release-2.4' },
  risk: 'side_effect',
  opRisk: WORKFLOW_OP_MATRIX.run,
  result: {
    hint: 'The result is larger than the result budget; one run with all its steps is bounded by the plan limits and has no smaller read.',
    next: { action: 'workflow run', input: { op: 'show', id: '<run id>' } },
  },
  receipt: {
    entity: 'run',
    selectors: ['id', 'revision'],
    retrieval: 'workflow run',
    retrievalInput: { op: 'show', id: '<id>' },
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['op'],
    properties: {
      op: { type: 'string', enum: workflowOps('run') },
      id: idSchema,
      planId: idSchema,
      triggerId: idSchema,
      status: { type: 'string', enum: ['running', 'completed', 'failed', 'cancelled'] },
      ...page,
      ...idempotencySelectorProps,
    },
    allOf: opInputRules(WORKFLOW_OPS.run),
  },
  output: {
    type: 'object',
    additionalProperties: false,
    properties: {
      run: runSchema,
      runs: { type: 'array', items: runSchema },
      // show and cancel return every step of the run (at most LIMITS.planSteps), never a page.
      steps: { type: 'array', items: stepSchema, maxItems: LIMITS.planSteps, 'x-wholeList': true },
      logs: { type: 'array', items: logSchema },
      ...pageOutputProps,
    },
  },
});

export const workflowStep = defineAction({
  domain: 'workflow',
  action: 'step',
  summary: 'Steps of a run: list/get; complete/fail/pause/park.',
  help: 'complete and fail act on a ready, paused or parked step; pause needs ready; park needs ready or paused. Completing the last step completes the run; a failed step fails it. Anything else is invalid_transition.',
  example: { op: 'complete', id: 'step_01J9Z3K8Q2', note: 'Build 2.4.0 is green.' },
  risk: 'side_effect',
  opRisk: WORKFLOW_OP_MATRIX.step,
  result: {
    hint: 'The result is larger than the result budget; one step is bounded by its input limits and has no smaller read.',
    next: { action: 'workflow step', input: { op: 'get', id: '<step id>' } },
  },
  receipt: {
    entity: 'step',
    selectors: ['id', 'revision'],
    retrieval: 'workflow step',
    retrievalInput: { op: 'get', id: '<id>' },
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['op'],
    properties: {
      op: { type: 'string', enum: workflowOps('step') },
      id: idSchema,
      runId: idSchema,
      note: stepNoteSchema,
      ...page,
      ...idempotencySelectorProps,
    },
    allOf: opInputRules(WORKFLOW_OPS.step),
  },
  output: {
    type: 'object',
    additionalProperties: false,
    properties: {
      step: stepSchema,
      steps: { type: 'array', items: stepSchema },
      run: runSchema,
      ...pageOutputProps,
    },
  },
});

export const workflowCatalog = catalogDomain(
  { workflow: 'Plans, triggers, runs, steps (each with an op).' },
  [workflowPlan, workflowTrigger, workflowRun, workflowStep],
);
