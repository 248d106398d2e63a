import { stdioCallSchema } from './stdio-call.js';

/**
 * The answers on the client-tool relays (catalog/operator/client-tools.ts's
 * rows): an app's answer to a call, and what the daemon answers: a
 * registration, a claimed call as its provider sees it, a settled call, a
 * saved delegated-thread scope.
 */

const anyObject = { type: 'object' } as const;
const clientId = { type: 'string', minLength: 1 } as const;
const nullableString = { type: ['string', 'null'] } as const;

/** A group as registered: its name, the inventory revision after it, and its tools' names. */
export const registeredSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['group', 'revision', 'tools'],
  properties: {
    group: { type: 'string' },
    revision: { type: 'integer' },
    tools: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** A call as its provider sees it (a claim's answer, a request event, the provider's own list). */
export const requestViewSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'request_id',
    'group',
    'tool',
    'arguments',
    'agent',
    'timeout_s',
    'created_at',
    'state',
    'claimed_by',
  ],
  properties: {
    request_id: { type: 'string' },
    group: { type: 'string' },
    tool: { type: 'string' },
    arguments: anyObject,
    agent: {
      type: 'object',
      additionalProperties: false,
      required: ['server_id', 'agent_id', 'session_id', 'run_id'],
      properties: {
        server_id: { type: 'string' },
        agent_id: { type: 'string' },
        session_id: nullableString,
        run_id: nullableString,
      },
    },
    timeout_s: { type: 'integer' },
    created_at: { type: 'string' },
    state: { enum: ['pending', 'claimed'] },
    claimed_by: nullableString,
    // Stdio groups only: the identity and exact deadline of the call.
    call: stdioCallSchema,
    _meta: {
      type: 'object',
      description: "The agent's trace context, when the daemon traces.",
      required: ['traceparent'],
      properties: { traceparent: { type: 'string' }, tracestate: { type: 'string' } },
    },
  },
} as const;

/** A settled call. */
export const settledSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['request_id', 'settled'],
  properties: { request_id: { type: 'string' }, settled: { const: true } },
} as const;

/** A delegated thread's scope as saved. */
export const scopeSavedSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['authorization_id', 'thread_id', 'task_id', 'tools'],
  properties: {
    authorization_id: { type: 'string' },
    thread_id: { type: 'string' },
    task_id: { type: 'string' },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'fingerprint'],
        properties: { name: { type: 'string' }, fingerprint: { type: 'string' } },
      },
    },
  },
} as const;

/** An app's answer to a claimed call: content blocks, or its own error (decodeResult checks it). */
export const appResultSchema = {
  anyOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['client_id', 'ok', 'content'],
      properties: {
        client_id: clientId,
        ok: { const: true },
        content: { type: 'array', items: anyObject, description: 'MCP content blocks.' },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['client_id', 'ok', 'error'],
      properties: {
        client_id: clientId,
        ok: { const: false },
        error: {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
            message: { type: 'string' },
          },
        },
      },
    },
  ],
} as const;
