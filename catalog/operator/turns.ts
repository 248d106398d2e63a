import { ID_PATTERN } from '../common.js';
import { turnSchema } from '../domains/turn.js';
import { ENTITY_ID_PATTERN } from '../ids.js';
import { operatorRoute } from './route.js';

/** A person's control of turns (the reads are the `turn` domain's operator reads). */

const turnParams = {
  type: 'object',
  additionalProperties: false,
  required: ['serverId', 'id'],
  properties: {
    serverId: { type: 'string', pattern: ENTITY_ID_PATTERN },
    id: { type: 'string', pattern: ID_PATTERN, maxLength: 64 },
  },
} as const;

const turnOutput = {
  type: 'object',
  additionalProperties: false,
  required: ['turn'],
  properties: { turn: turnSchema },
} as const;

export const turnsCancel = operatorRoute({
  name: 'turns.cancel',
  method: 'POST',
  path: '/api/v1/servers/:serverId/turns/:id/cancel',
  summary:
    "Cancels a queued turn, or stops a running one (its runtime's whole process group, TERM then KILL).",
  permission: 'operator',
  params: turnParams,
  output: turnOutput,
});

export const turnsRetry = operatorRoute({
  name: 'turns.retry',
  method: 'POST',
  path: '/api/v1/servers/:serverId/turns/:id/retry',
  summary: 'Queues a new turn for the same agent, target and messages as an ended one.',
  permission: 'operator',
  status: 201,
  params: turnParams,
  output: turnOutput,
});

/** What a posted message queued, one entry per agent it reached (messages.post answers with it). */
export const queuedTurnsSchema = {
  type: 'array',
  maxItems: 256,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['turnId', 'agentId', 'state', 'joined'],
    properties: {
      turnId: { type: 'string', pattern: ID_PATTERN },
      agentId: { type: 'string', pattern: ENTITY_ID_PATTERN },
      state: { type: 'string', enum: ['queued', 'dropped'] },
      joined: {
        type: 'boolean',
        description: 'The message joined a turn already queued for that agent on the same target.',
      },
    },
  },
} as const;
