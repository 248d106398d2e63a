import type { FromSchema } from 'json-schema-to-ts';
import { operatorRoute } from './route.js';
import { leaseEndSchema, leaseLineSchema, leaseRequestSchema } from './lease.js';

/** Runtime authorizations: the leases `run` holds, as the operator sees and ends them. */

const idParam = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

const runtimeViewSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'authorizationId',
    'serverId',
    'agentId',
    'runtime',
    'sessionId',
    'runId',
    'state',
    'inFlight',
    'generations',
  ],
  properties: {
    authorizationId: { type: 'string' },
    serverId: { type: 'string' },
    agentId: { type: 'string' },
    runtime: { type: 'string' },
    sessionId: { type: ['string', 'null'] },
    runId: { type: ['string', 'null'] },
    state: { type: 'string' },
    inFlight: { type: 'integer' },
    generations: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'issuedAt', 'expiresAt'],
        properties: {
          id: { type: 'string' },
          issuedAt: { type: 'string' },
          expiresAt: { type: 'string' },
        },
      },
    },
  },
} as const;

/** One runtime authorization as the operator sees it: binding, state, token generations, in-flight calls. Never a token. */
export type RuntimeView = FromSchema<typeof runtimeViewSchema>;

export const runtimesList = operatorRoute({
  name: 'runtimes.list',
  method: 'GET',
  path: '/api/v1/runtimes',
  summary: 'Every authorization holding a lease, oldest first (never a token).',
  permission: 'operator',
  output: {
    type: 'object',
    required: ['runtimes'],
    properties: { runtimes: { type: 'array', items: runtimeViewSchema } },
  },
});

export const runtimesLease = operatorRoute({
  name: 'runtimes.lease',
  method: 'POST',
  path: '/api/v1/runtimes',
  summary:
    "Opens a runtime lease: the first line describes it, the stream stays open for the runtime's life.",
  permission: 'operator',
  invalid: 'invalid_request',
  body: leaseRequestSchema,
  output: leaseLineSchema,
  stream: { kind: 'ndjson', event: leaseEndSchema },
});

export const runtimesRevoke = operatorRoute({
  name: 'runtimes.revoke',
  method: 'DELETE',
  path: '/api/v1/runtimes/:id',
  summary: 'Ends a runtime authorization.',
  permission: 'operator',
  params: idParam,
  output: {
    type: 'object',
    required: ['revoked', 'state'],
    properties: { revoked: { const: true }, state: { type: 'string' } },
  },
});

export const runtimesRotate = operatorRoute({
  name: 'runtimes.rotate',
  method: 'POST',
  path: '/api/v1/runtimes/:id/rotate',
  summary: 'Issues the next token generation now.',
  permission: 'operator',
  params: idParam,
  output: {
    type: 'object',
    required: ['generationId', 'expiresAt'],
    properties: { generationId: { type: 'string' }, expiresAt: { type: 'string' } },
  },
});

export const runtimesCodexAppServer = operatorRoute({
  name: 'runtimes.codexAppServer',
  method: 'POST',
  path: '/api/v1/runtimes/:id/codex-app-server',
  summary: 'Starts the one Codex app-server run of a codex-app-server authorization.',
  permission: 'operator',
  invalid: 'invalid_request',
  params: idParam,
  body: {
    type: 'object',
    required: ['command', 'env', 'prompt'],
    properties: {
      command: { type: 'array', minItems: 1, maxItems: 256, items: { type: 'string' } },
      env: { type: 'object', additionalProperties: { type: 'string' } },
      cwd: { type: ['string', 'null'] },
      prompt: { type: 'string', minLength: 1 },
    },
  },
  output: { type: 'object' },
  stream: {
    kind: 'ndjson',
    event: { type: 'object', required: ['event'], properties: { event: { type: 'string' } } },
  },
});
