import { ENTITY_ID_PATTERN } from '../ids.js';
import { TARGET_PATTERN, messageSend } from '../mcp-tools.js';
import { operatorRoute } from './route.js';

/**
 * Sessions and runs of a `serve --stdio` child: the app that spawned it
 * opens a session on one agent (and one exact target), starts turns in it
 * and cancels them. Every row names the child (`client_id`, with the key of
 * its stream's hello in the client-key header): a session belongs to the
 * child that opened it and ends with that child's event stream. A run is a
 * turn of the team store (its run id is the turn id), run by the same
 * runner as delivered turns.
 */

const clientId = { type: 'string', minLength: 1, maxLength: 64 } as const;
const sessionId = { type: 'string', pattern: '^ses_[0-9A-Za-z_-]{8,40}$' } as const;
const runId = { type: 'string', pattern: '^turn_[0-9A-Za-z]{6,40}$' } as const;

/** What the app sees of its session (the stdio method answers with `session_id` only). */
export const stdioSessionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session_id', 'agent', 'target', 'workdir'],
  properties: {
    session_id: sessionId,
    agent: { type: 'string', pattern: ENTITY_ID_PATTERN },
    target: { type: 'string', pattern: TARGET_PATTERN },
    workdir: { type: ['string', 'null'] },
  },
} as const;

const sessionParams = {
  type: 'object',
  additionalProperties: false,
  required: ['sessionId'],
  properties: { sessionId },
} as const;

export const stdioSessionCreate = operatorRoute({
  name: 'stdio.sessionCreate',
  method: 'POST',
  path: '/api/v1/stdio/sessions',
  summary:
    "Opens a session of a stdio child on an agent of the profile: its replies go to one exact target (default dm:<agent>), its runtime starts in one of the agent's allowed paths.",
  permission: 'operator',
  status: 201,
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['client_id', 'agent'],
    properties: {
      client_id: clientId,
      server_id: { type: 'string', pattern: ENTITY_ID_PATTERN },
      agent: { type: 'string', pattern: ENTITY_ID_PATTERN },
      target: { type: 'string', pattern: TARGET_PATTERN },
      workdir: { type: 'string', minLength: 1, maxLength: 4096 },
    },
  },
  output: stdioSessionSchema,
});

export const stdioTurnStart = operatorRoute({
  name: 'stdio.turnStart',
  method: 'POST',
  path: '/api/v1/stdio/sessions/:sessionId/turns',
  summary:
    "Starts a run in a stdio session: the app's text is stored as a person's message on the session's target and a turn of the session's agent is queued for it.",
  permission: 'operator',
  status: 201,
  params: sessionParams,
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['client_id', 'text'],
    properties: { client_id: clientId, text: messageSend.inputSchema.properties.content },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['run_id'],
    properties: { run_id: runId },
  },
});

export const stdioTurnCancel = operatorRoute({
  name: 'stdio.turnCancel',
  method: 'POST',
  path: '/api/v1/stdio/sessions/:sessionId/turns/:runId/cancel',
  summary: "Cancels a run of a stdio session (queued, or running: its runtime's whole group).",
  permission: 'operator',
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['sessionId', 'runId'],
    properties: { sessionId, runId },
  },
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['client_id'],
    properties: { client_id: clientId },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['run_id', 'state'],
    properties: { run_id: runId, state: { type: 'string' } },
  },
});
