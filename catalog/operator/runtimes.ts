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
    'sessionName',
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
    sessionName: { type: ['string', 'null'] },
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

const threadId = { type: 'string' } as const;
const role = { enum: ['primary', 'child'] } as const;
/** One event of the object's kind (`event`) with exactly these fields. */
const appServerEvent = <const K extends string, const P extends Record<string, unknown>>(
  kind: K,
  properties: P,
) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['event', ...(Object.keys(properties) as (keyof P & string)[])],
    properties: { event: { const: kind }, ...properties },
  }) as const;

/** What happens in a Codex app-server run, one NDJSON line each (daemon/drivers/app-server/session.ts). */
const appServerEventSchema = {
  anyOf: [
    appServerEvent('thread', { threadId, role, parentId: { type: ['string', 'null'] } }),
    appServerEvent('message', { threadId, text: { type: 'string' } }),
    appServerEvent('warning', { message: { type: 'string' } }),
    appServerEvent('tool', {
      threadId,
      role: { enum: ['primary', 'child', 'unknown'] },
      tool: { type: 'string' },
      decision: { enum: ['allowed', 'refused'] },
      isError: { type: 'boolean' },
    }),
    appServerEvent('declined', {
      threadId: { type: ['string', 'null'] },
      method: { type: 'string' },
    }),
    appServerEvent('done', { status: { type: 'string' }, error: { type: ['string', 'null'] } }),
  ],
} as const;

/** One line of a Codex app-server run's stream. */
export type AppServerEvent = FromSchema<typeof appServerEventSchema>;

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
  output: { description: 'No envelope: the answer is the stream of events, from the first line.' },
  stream: { kind: 'ndjson', envelope: false, event: appServerEventSchema },
});
