import { catalogDomain } from '../domain.js';
import { LIMITS, inputText, lookupText, textLimit } from '../limits.js';
import { defineAction } from '../descriptor.js';
import { idempotencySelectorProps, runtimeKindSchema } from '../common.js';
import { agentSchema } from './agent.js';

/** Agent ids: the same grammar runtime authorizations accept for an agent. */
export const AGENT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';

const agentIdSchema = {
  type: 'string',
  pattern: AGENT_ID_PATTERN,
  ...textLimit(LIMITS.agentId),
} as const;
const revisionSchema = {
  type: 'string',
  minLength: 1,
  ...lookupText(LIMITS.profileRevision.chars),
  description:
    'The profile revision the caller read (profile get); the edit fails with revision_conflict if it changed.',
} as const;
const baseUrlSchema = {
  type: 'string',
  pattern: '^https?://[^/@?#\\s]+(/[^?#\\s]*)?$',
  ...inputText(LIMITS.profileUrl),
  description: 'http(s) URL without credentials, query or fragment.',
} as const;
const envNameSchema = {
  type: 'string',
  pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$',
  ...textLimit(LIMITS.profileName),
} as const;
/**
 * Within the profile file's own byte limits (daemon/profile/parse.ts), which
 * agent reads return; as code points, only as many as always fit them.
 */
const displayNameSchema = {
  type: 'string',
  minLength: 1,
  ...inputText(LIMITS.profileName),
} as const;
const modelSchema = { type: 'string', minLength: 1, ...inputText(LIMITS.profileName) } as const;

/**
 * The turn settings an agent edit may change. What the daemon executes
 * (launch.command, binary, args) and where (workdir) are set in profile.json
 * by a person only, like header values and filesystem paths: agents call
 * these actions, and an agent that could name a command could run anything.
 */
export const launchEditSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    deadlineSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      description: 'How long one turn may run before it is stopped (default 1200).',
    },
    maxRunning: {
      type: 'integer',
      minimum: 1,
      maximum: 16,
      description: 'Turns of this agent that may run at once, on different targets (default 1).',
    },
    queueLimit: {
      type: 'integer',
      minimum: 1,
      maximum: LIMITS.turnQueue,
      description: `Queued turns beyond which a new one is dropped (queue_full; default ${LIMITS.turnQueue}).`,
    },
  },
} as const;

const outRevision = { type: 'string', ...textLimit(LIMITS.profileRevision) } as const;

const editOutput = {
  type: 'object',
  additionalProperties: false,
  required: ['agent', 'revision'],
  properties: {
    agent: agentSchema,
    revision: { ...outRevision, description: 'The profile revision after the edit.' },
  },
} as const;

export const agentCreate = defineAction({
  domain: 'agent',
  action: 'create',
  summary: 'Add an agent to the local profile.',
  help: 'Writes profile.json atomically and bumps the profile revision (agent list cursors issued before must restart). Header values, filesystem paths and the launch command are not set here (a person sets them in profile.json); launch takes the turn settings. An id in use is already_exists.',
  example: {
    id: 'reviewer',
    displayName: 'Code reviewer',
    runtime: 'claude',
    model: 'claude-sonnet-4',
  },
  risk: 'side_effect',
  result: {
    hint: 'The agent was added but its projection is too large to return; read it with agent get.',
    next: { action: 'agent get', input: { id: '<agent id>' } },
  },
  receipt: { entity: 'agent', selectors: ['id'], retrieval: 'agent get' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: {
      id: agentIdSchema,
      displayName: displayNameSchema,
      runtime: runtimeKindSchema,
      model: modelSchema,
      baseUrl: baseUrlSchema,
      apiKeyEnv: envNameSchema,
      launch: launchEditSchema,
      expectedRevision: revisionSchema,
      ...idempotencySelectorProps,
    },
  },
  output: editOutput,
});

export const agentUpdate = defineAction({
  domain: 'agent',
  action: 'update',
  summary: "Change an agent's display name, runtime, model, base URL or API-key variable.",
  help: "Give the id and the fields to change; model, baseUrl and apiKeyEnv accept null to clear them; launch merges the turn settings given into the entry's launch block. Headers, filesystem policy, the launch command and unknown fields of the entry are kept. Bumps the profile revision.",
  example: { id: 'reviewer', model: 'claude-opus-4', expectedRevision: 'k3J9aQ.4' },
  risk: 'side_effect',
  result: {
    hint: 'The agent was updated but its projection is too large to return; read it with agent get.',
    next: { action: 'agent get', input: { id: '<agent id>' } },
  },
  receipt: { entity: 'agent', selectors: ['id'], retrieval: 'agent get' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: {
      id: agentIdSchema,
      displayName: displayNameSchema,
      runtime: runtimeKindSchema,
      model: { anyOf: [modelSchema, { type: 'null' }] },
      baseUrl: { anyOf: [baseUrlSchema, { type: 'null' }] },
      apiKeyEnv: { anyOf: [envNameSchema, { type: 'null' }] },
      launch: launchEditSchema,
      expectedRevision: revisionSchema,
      ...idempotencySelectorProps,
    },
  },
  output: editOutput,
});

export const agentDelete = defineAction({
  domain: 'agent',
  action: 'delete',
  summary: 'Remove an agent from the local profile.',
  help: 'Writes profile.json atomically and bumps the profile revision. Team memberships naming the agent are removed with it.',
  example: { id: 'reviewer' },
  risk: 'side_effect',
  result: {
    hint: 'The agent was removed; list agents with agent list.',
    next: { action: 'agent list', input: { limit: 5 } },
  },
  receipt: { entity: 'deleted', selectors: ['id'], retrieval: 'agent list' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: {
      id: agentIdSchema,
      expectedRevision: revisionSchema,
      ...idempotencySelectorProps,
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['deleted', 'revision'],
    properties: {
      deleted: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: { id: agentIdSchema },
      },
      revision: outRevision,
    },
  },
});

export const agentAdminCatalog = catalogDomain({}, [agentCreate, agentUpdate, agentDelete]);
