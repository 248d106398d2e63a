import { catalogDomain } from '../domain.js';
import { defineAction } from '../descriptor.js';
import { LIMITS, lookupText, textLimit } from '../limits.js';
import { pageInputProps, pageOutputProps, runtimeKindSchema } from '../common.js';

/**
 * The safe projection of a configured agent. It deliberately has no field that
 * could carry a header value, URL userinfo/query/fragment, a source id or a
 * filesystem path: those never leave the daemon.
 */
/** Agent ids, names and header names come from the profile, which enforces the same limits. */
const nameSchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.profileName) } as const;
const agentIdSchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.agentId) } as const;
const urlSchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.profileUrl) } as const;

export const agentSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'displayName',
    'runtime',
    'model',
    'baseUrl',
    'headerNames',
    'apiKeyEnv',
    'filesystem',
    'turns',
    'teams',
  ],
  properties: {
    id: agentIdSchema,
    displayName: nameSchema,
    runtime: runtimeKindSchema,
    model: { anyOf: [nameSchema, { type: 'null' }] },
    baseUrl: {
      anyOf: [urlSchema, { type: 'null' }],
      description: 'Scheme, host, port and path only.',
    },
    headerNames: {
      type: 'array',
      maxItems: LIMITS.agentHeaders,
      items: nameSchema,
      description: 'Names of configured headers, lower-cased; never values.',
    },
    apiKeyEnv: {
      anyOf: [nameSchema, { type: 'null' }],
      description: 'Name of the environment variable holding the API key; never its value.',
    },
    filesystem: {
      type: 'object',
      additionalProperties: false,
      required: ['allowedPathCount'],
      properties: { allowedPathCount: { type: 'integer', minimum: 0 } },
    },
    turns: {
      type: 'object',
      additionalProperties: false,
      required: ['command', 'deadlineSeconds', 'maxRunning', 'queueLimit'],
      description: "How the daemon runs this agent's turns (the command itself is never shown).",
      properties: {
        command: {
          type: 'boolean',
          description: 'A person declared a command runtime in the profile.',
        },
        deadlineSeconds: { type: 'integer', minimum: 1 },
        maxRunning: { type: 'integer', minimum: 1 },
        queueLimit: { type: 'integer', minimum: 1 },
      },
    },
    teams: {
      type: 'array',
      maxItems: LIMITS.agentTeams,
      items: nameSchema,
      description: 'teamIds this agent belongs to.',
    },
  },
} as const;

export const agentList = defineAction({
  domain: 'agent',
  action: 'list',
  summary: 'List the agents configured in the local profile.',
  help: 'Ordered by agent id. query matches id or display name (case-insensitive substring). A cursor is bound to the query and to the profile revision: after the profile changes, start again without a cursor.',
  example: { query: 'review', limit: 20 },
  risk: 'read',
  result: { hint: 'The page is larger than the result budget.' },
  input: {
    type: 'object',
    additionalProperties: false,
    properties: {
      query: { type: 'string', minLength: 1, ...textLimit(LIMITS.query) },
      runtime: runtimeKindSchema,
      ...pageInputProps,
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['agents', 'hasMore'],
    properties: {
      agents: { type: 'array', maxItems: 100, items: agentSchema },
      ...pageOutputProps,
    },
  },
});

export const agentGet = defineAction({
  domain: 'agent',
  action: 'get',
  summary: 'Read the safe projection of one configured agent.',
  help: 'Header values, API keys, URL credentials and filesystem paths are never returned; only their names or a count.',
  example: { id: 'a1' },
  risk: 'read',
  result: {
    hint: 'The agent projection is larger than the result budget, which the profile limits are meant to rule out; no smaller read of one agent exists.',
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    // Only looked up: every id of that length is a fair question (an unknown one is not_found).
    properties: { id: { type: 'string', minLength: 1, ...lookupText(LIMITS.agentId.chars) } },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['agent'],
    properties: { agent: agentSchema },
  },
});

export const agentCatalog = catalogDomain(
  { agent: 'Configured agents: safe reads, profile edits.' },
  [agentList, agentGet],
);
