import { catalogDomain } from '../domain.js';
import { defineAction } from '../descriptor.js';
import { LIMITS, lookupText, textLimit } from '../limits.js';
import { pageInputProps, pageOutputProps } from '../common.js';

/** Team ids, handles and names come from the profile, which enforces the same limits. */
const nameSchema = { type: 'string', minLength: 1, ...textLimit(LIMITS.profileName) } as const;

export const teamSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['teamId', 'handle', 'displayName', 'members'],
  properties: {
    teamId: nameSchema,
    handle: nameSchema,
    displayName: nameSchema,
    members: {
      type: 'array',
      maxItems: LIMITS.teamMembers,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'handle'],
        properties: {
          kind: { type: 'string', enum: ['agent', 'human'] },
          handle: nameSchema,
        },
      },
    },
  },
} as const;

export const teamList = defineAction({
  domain: 'team',
  action: 'list',
  summary: 'List the teams of the local profile.',
  help: 'Ordered by displayName, then handle, then teamId. Continue with the nextCursor of the previous page.',
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
    required: ['teams', 'hasMore'],
    properties: { teams: { type: 'array', maxItems: 100, items: teamSchema }, ...pageOutputProps },
  },
});

export const teamGet = defineAction({
  domain: 'team',
  action: 'get',
  summary: 'Read one team and its members.',
  help: 'Name the team by teamId.',
  example: { teamId: 'team-core' },
  risk: 'read',
  result: {
    hint: 'The team is larger than the result budget, which the profile limits are meant to rule out; no smaller read of one team exists.',
  },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['teamId'],
    // Only looked up: every name of that length is a fair question (an unknown one is not_found).
    properties: {
      teamId: { type: 'string', minLength: 1, ...lookupText(LIMITS.profileName.chars) },
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['team'],
    properties: { team: teamSchema },
  },
});

export const teamCatalog = catalogDomain({ team: 'Read the teams of the local profile.' }, [
  teamList,
  teamGet,
]);
