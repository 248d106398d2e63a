import { catalogDomain } from '../domain.js';
import { defineAction } from '../descriptor.js';
import { LIMITS } from '../limits.js';
import { idSchema, pageInputProps, pageOutputProps, timestampSchema } from '../common.js';
import { MESSAGE_ID_PATTERN, TARGET_PATTERN } from '../mcp-tools.js';
import { ENTITY_ID_PATTERN } from '../ids.js';
import { TURN_ERRORS, TURN_STATES } from '../turns.js';

/**
 * Turns: the runs of an agent's runtime the daemon starts for a person's
 * message. A runtime sees its own agent's turns; a person (the operator
 * reads) sees every agent's.
 */

const stateSchema = { type: 'string', enum: TURN_STATES } as const;
const timeOrNull = { type: ['string', 'null'], maxLength: 40, 'x-maxJsonBytes': 40 } as const;

export const turnSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'agentId',
    'target',
    'messageIds',
    'state',
    'error',
    'errorDetail',
    'exitStatus',
    'replied',
    'sessionId',
    'resumed',
    'retryOf',
    'createdAt',
    'startedAt',
    'finishedAt',
  ],
  properties: {
    id: idSchema,
    agentId: { type: 'string', pattern: ENTITY_ID_PATTERN, maxLength: 64 },
    target: { type: 'string', pattern: TARGET_PATTERN, maxLength: 128 },
    messageIds: {
      type: 'array',
      maxItems: LIMITS.turnMessages,
      items: { type: 'string', pattern: MESSAGE_ID_PATTERN, maxLength: 64 },
      description: 'The messages this turn answers, oldest first.',
    },
    state: stateSchema,
    error: {
      anyOf: [{ type: 'string', enum: TURN_ERRORS }, { type: 'null' }],
      description: 'Why the turn did not succeed (closed set), or null.',
    },
    errorDetail: {
      type: ['string', 'null'],
      maxLength: 300,
      'x-maxJsonBytes': 1800,
      description:
        'What the daemon saw when the turn could not start (the runtime path looked for, the working directory), or null.',
    },
    exitStatus: {
      type: ['integer', 'null'],
      description: "The runtime's exit status (128+n for a signal), null before it ends.",
    },
    replied: {
      type: ['boolean', 'null'],
      description: 'Whether the agent wrote to the target during the turn; null until it ends.',
    },
    sessionId: {
      type: ['string', 'null'],
      maxLength: 128,
      description: "The runtime's own session the turn started or resumed.",
    },
    resumed: { type: 'boolean', description: 'The turn resumed an earlier session.' },
    retryOf: { anyOf: [idSchema, { type: 'null' }] },
    createdAt: timestampSchema,
    startedAt: timeOrNull,
    finishedAt: timeOrNull,
  },
} as const;

export const turnGet = defineAction({
  domain: 'turn',
  action: 'get',
  summary: 'Read one turn by id.',
  help: 'Returns the turn: its agent, target, the messages it answers, its state and, once it ended, how.',
  example: { id: 'turn_01J9Z3K8Q2' },
  risk: 'read',
  result: { hint: 'One turn is bounded by its message limit; no smaller read exists.' },
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: idSchema },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['turn'],
    properties: { turn: turnSchema },
  },
});

export const turnList = defineAction({
  domain: 'turn',
  action: 'list',
  summary: 'List turns, newest first.',
  help: "Filters by agent and state. A runtime sees only its own agent's turns. Continue with the nextCursor of the previous page and the same filters.",
  example: { state: 'running', limit: 20 },
  risk: 'read',
  result: { hint: 'The page is larger than the result budget; ask for fewer turns with limit.' },
  input: {
    type: 'object',
    additionalProperties: false,
    properties: {
      agent: { type: 'string', pattern: ENTITY_ID_PATTERN, maxLength: 64, 'x-maxJsonBytes': 64 },
      state: stateSchema,
      ...pageInputProps,
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['turns', 'hasMore'],
    properties: { turns: { type: 'array', maxItems: 100, items: turnSchema }, ...pageOutputProps },
  },
});

export const turnCatalog = catalogDomain(
  { turn: "Runs of an agent's runtime started for a person's message." },
  [turnList, turnGet],
);
