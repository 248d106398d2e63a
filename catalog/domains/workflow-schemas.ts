import { idSchema, timestampSchema } from '../common.js';
import { TARGET_PATTERN } from '../mcp-tools.js';

/** DTOs of the workflow domain (plans, versions, triggers, runs, steps, log entries). */

export const stepDefSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, description: { type: 'string', maxLength: 2000 } },
} as const;

export const stepDefsSchema = { type: 'array', items: stepDefSchema, minItems: 1, maxItems: 50 } as const;

export const planSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'description', 'status', 'latestVersion', 'publishedVersion', 'revision', 'createdAt', 'updatedAt'],
  properties: {
    id: idSchema,
    name: { type: 'string' },
    description: { type: 'string' },
    status: { type: 'string', enum: ['draft', 'published', 'archived'] },
    latestVersion: { type: 'integer', minimum: 1 },
    publishedVersion: { type: ['integer', 'null'], description: 'The version runs start from; null until published.' },
    revision: { type: 'integer', minimum: 1 },
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
    steps: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['name', 'description'], properties: { name: { type: 'string' }, description: { type: 'string' } } } },
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
      items: { type: 'object', additionalProperties: false, required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
} as const;

export const triggerKindSchema = { type: 'string', enum: ['manual', 'schedule', 'message'] } as const;
export const wfTargetSchema = { type: 'string', pattern: TARGET_PATTERN, maxLength: 140 } as const;

export const triggerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'planId', 'kind', 'cron', 'timeZone', 'target', 'status', 'nextFireAt', 'revision', 'createdAt', 'updatedAt'],
  properties: {
    id: idSchema,
    planId: idSchema,
    kind: triggerKindSchema,
    cron: { type: ['string', 'null'] },
    timeZone: { type: ['string', 'null'] },
    target: { type: ['string', 'null'], description: 'For message triggers: a message to this exact target starts a run.' },
    status: { type: 'string', enum: ['enabled', 'disabled', 'archived'] },
    nextFireAt: { type: ['string', 'null'] },
    revision: { type: 'integer', minimum: 1 },
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
} as const;

export const runSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'planId', 'planVersion', 'triggerId', 'status', 'startedBy', 'revision', 'createdAt', 'updatedAt', 'finishedAt'],
  properties: {
    id: idSchema,
    planId: idSchema,
    planVersion: { type: 'integer', minimum: 1 },
    triggerId: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['running', 'completed', 'failed', 'cancelled'] },
    startedBy: { type: 'string', description: 'agent:<id>, or trigger:<id> for schedule and message triggers.' },
    revision: { type: 'integer', minimum: 1 },
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
    finishedAt: { type: ['string', 'null'] },
  },
} as const;

export const stepStatusSchema = { type: 'string', enum: ['pending', 'ready', 'completed', 'failed', 'paused', 'parked'] } as const;

export const stepSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'runId', 'index', 'name', 'status', 'note', 'revision', 'updatedAt'],
  properties: {
    id: idSchema,
    runId: idSchema,
    index: { type: 'integer', minimum: 0 },
    name: { type: 'string' },
    status: stepStatusSchema,
    note: { type: ['string', 'null'], description: 'The output, failure reason or pause note of the last transition.' },
    revision: { type: 'integer', minimum: 1 },
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
    stepId: { type: ['string', 'null'] },
    event: { type: 'string' },
    detail: { type: ['string', 'null'] },
  },
} as const;
