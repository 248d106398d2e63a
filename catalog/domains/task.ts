import { catalogDomain } from '../domain.js';
import { defineAction } from '../descriptor.js';
import { LIMITS, textLimit } from '../limits.js';
import {
  idSchema,
  idempotencySelectorProps,
  pageInputProps,
  pageOutputProps,
  timestampSchema,
  rowRevisionSchema,
} from '../common.js';

const statusSchema = {
  type: 'string',
  enum: ['todo', 'in_progress', 'blocked', 'done', 'cancelled'],
} as const;
const handleSchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.handle) } as const;
const titleSchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.taskTitle) } as const;
const descriptionSchema = { type: 'string', ...textLimit(LIMITS.taskDescription) } as const;

export const taskSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'title',
    'description',
    'status',
    'assignee',
    'projectId',
    'revision',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: idSchema,
    title: titleSchema,
    description: descriptionSchema,
    status: statusSchema,
    assignee: { anyOf: [handleSchema, { type: 'null' }] },
    projectId: { anyOf: [idSchema, { type: 'null' }] },
    revision: rowRevisionSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
} as const;

const taskOutput = {
  type: 'object',
  additionalProperties: false,
  required: ['task'],
  properties: { task: taskSchema },
} as const;

export const taskCreate = defineAction({
  domain: 'task',
  action: 'create',
  summary: 'Create a task.',
  help: 'Creates a task in status "todo" unless another status is given. Pass idempotencyKey when retrying so the task is created once.',
  example: { title: 'Write the release notes', assignee: 'a1', idempotencyKey: 'release-notes-1' },
  risk: 'side_effect',
  result: {
    hint: 'The task was too large to return; read it back with task get.',
    next: { action: 'task get', input: { id: '<task id>' } },
  },
  receipt: { entity: 'task', selectors: ['id', 'revision'], retrieval: 'task get' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['title'],
    properties: {
      title: titleSchema,
      description: descriptionSchema,
      status: statusSchema,
      assignee: handleSchema,
      projectId: idSchema,
      ...idempotencySelectorProps,
    },
  },
  output: taskOutput,
});

export const taskGet = defineAction({
  domain: 'task',
  action: 'get',
  summary: 'Read one task by id.',
  help: 'Returns the task with its current revision.',
  example: { id: 'task_01J9Z3K8Q2' },
  risk: 'read',
  result: {
    hint: 'The task is larger than the result budget, which its input limits are meant to rule out; no smaller read of one task exists.',
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: idSchema },
  },
  output: taskOutput,
});

export const taskList = defineAction({
  domain: 'task',
  action: 'list',
  summary: 'List tasks, most recently updated first.',
  help: 'Filters by status, assignee and project. Ordered by updatedAt descending, then id. Continue with the nextCursor of the previous page and the same filters.',
  example: { status: 'todo', limit: 20 },
  risk: 'read',
  result: { hint: 'The page is larger than the result budget.' },
  input: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: statusSchema,
      assignee: handleSchema,
      projectId: idSchema,
      ...pageInputProps,
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['tasks', 'hasMore'],
    properties: { tasks: { type: 'array', maxItems: 100, items: taskSchema }, ...pageOutputProps },
  },
});

export const taskUpdate = defineAction({
  domain: 'task',
  action: 'update',
  summary: "Change a task's title, description, status, assignee or project.",
  help: 'Give the id and at least one field to change; assignee and projectId accept null to clear them. expectedRevision makes the update fail with revision_conflict if someone changed the task first.',
  example: { id: 'task_01J9Z3K8Q2', status: 'done', expectedRevision: 1 },
  risk: 'side_effect',
  result: {
    hint: 'The updated task was too large to return; read it back with task get.',
    next: { action: 'task get', input: { id: '<task id>' } },
  },
  receipt: { entity: 'task', selectors: ['id', 'revision'], retrieval: 'task get' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: {
      id: idSchema,
      title: titleSchema,
      description: descriptionSchema,
      status: statusSchema,
      assignee: { anyOf: [handleSchema, { type: 'null' }] },
      projectId: { anyOf: [idSchema, { type: 'null' }] },
      expectedRevision: { type: 'integer', minimum: 1 },
      ...idempotencySelectorProps,
    },
  },
  output: taskOutput,
});

export const taskCatalog = catalogDomain({ task: 'Create, read, list and update tasks.' }, [
  taskCreate,
  taskGet,
  taskList,
  taskUpdate,
]);
