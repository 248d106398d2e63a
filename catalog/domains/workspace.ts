import { catalogDomain } from '../domain.js';
import { LIMITS, textLimit } from '../limits.js';
import { defineAction } from '../descriptor.js';
import { agentSchema } from './agent.js';

/** Profile names, bounded by the profile parser. */
const nameSchema = { type: 'string', ...textLimit(LIMITS.profileName) } as const;

const teamRef = {
  type: 'object',
  additionalProperties: false,
  required: ['teamId', 'handle', 'displayName'],
  properties: { teamId: nameSchema, handle: nameSchema, displayName: nameSchema },
} as const;

export const workspaceGet = defineAction({
  domain: 'workspace',
  action: 'get',
  summary: 'Read where the calling runtime is bound: server, agent, session, run, teams.',
  help: 'A safe projection of the runtime authorization: the working directory is reported only as set or not, never as a path.',
  example: {},
  risk: 'read',
  result: {
    hint: 'The workspace is larger than the result budget, which the profile limits are meant to rule out; no smaller read of it exists.',
  },
  input: { type: 'object', additionalProperties: false, properties: {} },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['workspace'],
    properties: {
      workspace: {
        type: 'object',
        additionalProperties: false,
        required: ['serverId', 'agentId', 'sessionId', 'runId', 'workdirSet', 'teams'],
        properties: {
          serverId: { type: 'string', ...textLimit(LIMITS.agentId) },
          agentId: { type: 'string', ...textLimit(LIMITS.agentId) },
          sessionId: { type: ['string', 'null'], ...textLimit(LIMITS.agentId) },
          runId: { type: ['string', 'null'], ...textLimit(LIMITS.agentId) },
          workdirSet: { type: 'boolean' },
          teams: {
            type: 'array',
            maxItems: LIMITS.agentTeams,
            items: teamRef,
            description: 'Teams of the local profile the agent belongs to.',
          },
        },
      },
    },
  },
});

export const profileGet = defineAction({
  domain: 'profile',
  action: 'get',
  summary: 'Read the local profile summary, its revision and your own agent entry.',
  help: "Counts and the calling agent's safe projection (null when the profile does not configure it). Pass revision as expectedRevision to agent create/update/delete.",
  example: {},
  risk: 'read',
  result: {
    hint: 'The profile summary is larger than the result budget, which the profile limits are meant to rule out; no smaller read of it exists.',
  },
  input: { type: 'object', additionalProperties: false, properties: {} },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['profile'],
    properties: {
      profile: {
        type: 'object',
        additionalProperties: false,
        required: ['revision', 'agentCount', 'teamCount', 'self'],
        properties: {
          revision: { type: 'string', ...textLimit(LIMITS.profileRevision) },
          agentCount: { type: 'integer', minimum: 0 },
          teamCount: { type: 'integer', minimum: 0 },
          self: { anyOf: [agentSchema, { type: 'null' }] },
        },
      },
    },
  },
});

export const workspaceCatalog = catalogDomain(
  { workspace: 'Where this runtime is bound.', profile: 'Local profile summary and revision.' },
  [workspaceGet, profileGet],
);
