import { LIMITS, textLimit } from '../limits.js';
import { idSchema, timestampSchema, rowRevisionSchema } from '../common.js';
import { TARGET_PATTERN } from '../mcp-tools.js';

/** DTOs of the workflow domain (plans, versions, triggers, runs, steps, log entries). */

const stepDefSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, ...textLimit(LIMITS.stepName) },
    description: { type: 'string', ...textLimit(LIMITS.stepDescription) },
  },
} as const;

export const stepDefsSchema = {
  type: 'array',
  items: stepDefSchema,
  minItems: 1,
  maxItems: LIMITS.planSteps,
} as const;

export const planNameSchema = {
  type: 'string',
  minLength: 1,
  ...textLimit(LIMITS.planName),
} as const;
export const planDescriptionSchema = {
  type: 'string',
  ...textLimit(LIMITS.planDescription),
} as const;
export const stepNoteSchema = { type: 'string', ...textLimit(LIMITS.stepNote) } as const;
const timeOrNull = { type: ['string', 'null'], maxLength: 40, 'x-maxJsonBytes': 40 } as const;
const idOrNull = { type: ['string', 'null'], maxLength: 64, 'x-maxJsonBytes': 64 } as const;

export const planSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'description',
    'status',
    'latestVersion',
    'publishedVersion',
    'revision',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: idSchema,
    name: { type: 'string', ...textLimit(LIMITS.planName) },
    description: { type: 'string', ...textLimit(LIMITS.planDescription) },
    status: { type: 'string', enum: ['draft', 'published', 'archived'] },
    latestVersion: { type: 'integer', minimum: 1 },
    publishedVersion: {
      type: ['integer', 'null'],
      description: 'The version runs start from; null until published.',
    },
    revision: rowRevisionSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
} as const;

export const planVersionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['planId', 'version', 'steps', 'createdAt'],
  properties: {
    planId: idSchema,
    version: { type: 'integer', minimum: 1 },
    steps: {
      type: 'array',
      maxItems: LIMITS.planSteps,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'description'],
        properties: {
          name: { type: 'string', ...textLimit(LIMITS.stepName) },
          description: { type: 'string', ...textLimit(LIMITS.stepDescription) },
        },
      },
    },
    createdAt: timestampSchema,
  },
} as const;

export const validationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['valid', 'problems'],
  properties: {
    valid: { type: 'boolean' },
    problems: {
      type: 'array',
      maxItems: LIMITS.validationProblems,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'message'],
        properties: {
          path: { type: 'string', ...textLimit(LIMITS.validationPath) },
          message: { type: 'string', ...textLimit(LIMITS.validationMessage) },
        },
      },
    },
  },
} as const;

export const triggerKindSchema = {
  type: 'string',
  enum: ['manual', 'schedule', 'message'],
} as const;
export const wfTargetSchema = {
  type: 'string',
  pattern: TARGET_PATTERN,
  maxLength: 140,
  'x-maxJsonBytes': 140,
} as const;

export const triggerSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'planId',
    'kind',
    'cron',
    'timeZone',
    'target',
    'status',
    'nextFireAt',
    'revision',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: idSchema,
    planId: idSchema,
    kind: triggerKindSchema,
    cron: { type: ['string', 'null'], ...textLimit(LIMITS.cron) },
    timeZone: { type: ['string', 'null'], ...textLimit(LIMITS.timeZone) },
    target: {
      type: ['string', 'null'],
      maxLength: 140,
      'x-maxJsonBytes': 140,
      description: 'For message triggers: a message to this exact target starts a run.',
    },
    status: { type: 'string', enum: ['enabled', 'disabled', 'archived'] },
    nextFireAt: timeOrNull,
    revision: rowRevisionSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
} as const;

export const runSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'planId',
    'planVersion',
    'triggerId',
    'status',
    'startedBy',
    'revision',
    'createdAt',
    'updatedAt',
    'finishedAt',
  ],
  properties: {
    id: idSchema,
    planId: idSchema,
    planVersion: { type: 'integer', minimum: 1 },
    triggerId: idOrNull,
    status: { type: 'string', enum: ['running', 'completed', 'failed', 'cancelled'] },
    startedBy: {
      type: 'string',
      maxLength: 8 + LIMITS.agentId.chars,
      'x-maxJsonBytes': 8 + LIMITS.agentId.bytes,
      description: 'agent:<id>, or trigger:<id> for schedule and message triggers.',
    },
    revision: rowRevisionSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
    finishedAt: timeOrNull,
  },
} as const;

const stepStatusSchema = {
  type: 'string',
  enum: ['pending', 'ready', 'completed', 'failed', 'paused', 'parked'],
} as const;

export const stepSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'runId', 'index', 'name', 'status', 'note', 'revision', 'updatedAt'],
  properties: {
    id: idSchema,
    runId: idSchema,
    index: { type: 'integer', minimum: 0 },
    name: { type: 'string', ...textLimit(LIMITS.stepName) },
    status: stepStatusSchema,
    note: {
      type: ['string', 'null'],
      ...textLimit(LIMITS.stepNote),
      description: 'The output, failure reason or pause note of the last transition.',
    },
    revision: rowRevisionSchema,
    updatedAt: timestampSchema,
  },
} as const;

export const logSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['seq', 'at', 'stepId', 'event', 'detail'],
  properties: {
    seq: { type: 'integer', minimum: 1 },
    at: timestampSchema,
    stepId: idOrNull,
    event: { type: 'string', ...textLimit(LIMITS.logEvent) },
    detail: { type: ['string', 'null'], ...textLimit(LIMITS.logDetail) },
  },
} as const;
