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

const nameSchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.projectName) } as const;
const descriptionSchema = { type: 'string', ...textLimit(LIMITS.projectDescription) } as const;

export const projectSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'description', 'revision', 'createdAt', 'updatedAt'],
  properties: {
    id: idSchema,
    name: nameSchema,
    description: descriptionSchema,
    revision: rowRevisionSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
} as const;

const projectOutput = {
  type: 'object',
  additionalProperties: false,
  required: ['project'],
  properties: { project: projectSchema },
} as const;

export const projectCreate = defineAction({
  domain: 'project',
  action: 'create',
  summary: 'Create a project that tasks can belong to.',
  help: 'Project names are free text. Pass idempotencyKey when retrying so the project is created once.',
  example: { name: 'Website relaunch', description: 'Q1 redesign', idempotencyKey: 'relaunch-1' },
  risk: 'side_effect',
  result: {
    hint: 'The project was too large to return; read it back with project get.',
    next: { action: 'project get', input: { id: '<project id>' } },
  },
  receipt: { entity: 'project', selectors: ['id', 'revision'], retrieval: 'project get' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: nameSchema,
      description: descriptionSchema,
      ...idempotencySelectorProps,
    },
  },
  output: projectOutput,
});

export const projectGet = defineAction({
  domain: 'project',
  action: 'get',
  summary: 'Read one project by id.',
  help: 'Returns the project with its current revision.',
  example: { id: 'project_01J9Z3K8Q2' },
  risk: 'read',
  result: {
    hint: 'The project is larger than the result budget, which its input limits are meant to rule out; no smaller read of one project exists.',
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: idSchema },
  },
  output: projectOutput,
});

export const projectList = defineAction({
  domain: 'project',
  action: 'list',
  summary: 'List projects, most recently updated first.',
  help: 'Ordered by updatedAt descending, then id. Continue with the nextCursor of the previous page.',
  example: { limit: 20 },
  risk: 'read',
  result: { hint: 'The page is larger than the result budget.' },
  input: {
    type: 'object',
    additionalProperties: false,
    properties: { ...pageInputProps },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['projects', 'hasMore'],
    properties: {
      projects: { type: 'array', maxItems: 100, items: projectSchema },
      ...pageOutputProps,
    },
  },
});

export const projectCatalog = catalogDomain({ project: 'Create, read and list projects.' }, [
  projectCreate,
  projectGet,
  projectList,
]);
