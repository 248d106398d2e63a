import { catalogDomain } from '../domain.js';
import { defineAction } from '../descriptor.js';
import { LIMITS, textLimit } from '../limits.js';
import {
  idSchema,
  idempotencySelectorProps,
  pageInputProps,
  pageOutputProps,
  timestampSchema,
} from '../common.js';

const verdictSchema = { type: 'string', enum: ['approve', 'request_changes', 'comment'] } as const;

const bodySchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.reviewBody) } as const;

export const reviewSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'taskId', 'author', 'verdict', 'body', 'createdAt', 'updatedAt'],
  properties: {
    id: idSchema,
    taskId: idSchema,
    author: {
      type: 'string',
      ...textLimit(LIMITS.agentId),
      description: 'Agent id of the reviewer.',
    },
    verdict: verdictSchema,
    body: bodySchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
} as const;

export const reviewAdd = defineAction({
  domain: 'review',
  action: 'add',
  summary: "Add a review to a task's review thread.",
  help: 'The task is named explicitly by taskId; there is no default target. verdict is approve, request_changes or comment.',
  example: {
    taskId: 'task_01J9Z3K8Q2',
    verdict: 'approve',
    body: 'Looks good; tests cover the edge cases.',
  },
  risk: 'side_effect',
  result: {
    hint: 'The review was too large to return; read the thread with review list.',
    next: { action: 'review list', input: { taskId: '<task id>', limit: 1 } },
  },
  receipt: { entity: 'review', selectors: ['id', 'taskId'], retrieval: 'review list' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['taskId', 'verdict', 'body'],
    properties: {
      taskId: idSchema,
      verdict: verdictSchema,
      body: bodySchema,
      ...idempotencySelectorProps,
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['review'],
    properties: { review: reviewSchema },
  },
});

export const reviewList = defineAction({
  domain: 'review',
  action: 'list',
  summary: 'List the reviews of one task, newest first.',
  help: "Ordered by updatedAt descending, then id descending, within the task's thread. Continue with nextCursor and the same taskId.",
  example: { taskId: 'task_01J9Z3K8Q2', limit: 20 },
  risk: 'read',
  result: { hint: 'The page is larger than the result budget.' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['taskId'],
    properties: { taskId: idSchema, ...pageInputProps },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['reviews', 'hasMore'],
    properties: {
      reviews: { type: 'array', maxItems: 100, items: reviewSchema },
      ...pageOutputProps,
    },
  },
});

export const reviewCatalog = catalogDomain({ review: 'Add and list reviews on a task.' }, [
  reviewAdd,
  reviewList,
]);
