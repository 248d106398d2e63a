import { EVENT_KINDS } from '../event-kinds.js';
import {
  appResultSchema,
  registeredSchema,
  requestViewSchema,
  scopeSavedSchema,
  settledSchema,
} from './client-tool-answers.js';
import { operatorRoute } from './route.js';

/**
 * Client tools over HTTP: an app (or a `serve --stdio` child) registers
 * tools, claims the calls made to them and answers; the operator sees what is
 * offered. Bodies are checked by the relays' own decoders (daemon/clienttools/),
 * whose refusals carry the client-tool codes (unknown_client, invalid_tool, ...).
 */

const clientId = { type: 'string', minLength: 1 } as const;
const requestId = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;
const anyObject = { type: 'object' } as const;
export const clientToolsRegister = operatorRoute({
  name: 'clientTools.register',
  method: 'POST',
  path: '/api/v1/client-tools',
  summary: "Registers (or replaces) an app's group of tools.",
  permission: 'operator',
  decoder: 'decodeRegister (daemon/clienttools/validate.ts)',
  body: {
    type: 'object',
    required: ['client_id', 'group', 'tools'],
    properties: {
      client_id: clientId,
      group: { type: 'string' },
      tools: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'description', 'input_schema'],
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            input_schema: { type: 'object' },
            timeout_s: { type: 'integer' },
          },
        },
      },
    },
  },
  output: registeredSchema,
});

export const clientToolsClients = operatorRoute({
  name: 'clientTools.clients',
  method: 'GET',
  path: '/api/v1/client-tools/clients',
  summary: 'The connected apps and their groups.',
  permission: 'operator',
  output: {
    type: 'object',
    required: ['clients'],
    properties: {
      clients: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['clientId', 'provider', 'groups'],
          properties: {
            clientId: { type: 'string' },
            provider: { type: 'boolean' },
            groups: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  },
});

export const clientToolsRequests = operatorRoute({
  name: 'clientTools.requests',
  method: 'GET',
  path: '/api/v1/client-tools/requests',
  summary: "Calls waiting or claimed: ids only, or with client_id that provider's own calls.",
  permission: 'operator',
  query: {
    type: 'object',
    properties: { client_id: { type: 'string' }, pending: { type: 'string' } },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['requests'],
    properties: {
      requests: {
        type: 'array',
        // With client_id, the provider's own calls with their arguments and agent; without, ids only.
        items: {
          anyOf: [
            requestViewSchema,
            {
              type: 'object',
              additionalProperties: false,
              required: ['request_id', 'group', 'tool', 'state'],
              properties: {
                request_id: { type: 'string' },
                group: { type: 'string' },
                tool: { type: 'string' },
                state: { enum: ['pending', 'claimed'] },
              },
            },
          ],
        },
      },
    },
  },
});

export const clientToolsClaim = operatorRoute({
  name: 'clientTools.claim',
  method: 'POST',
  path: '/api/v1/client-tools/requests/:id/claim',
  summary: 'Claims a waiting call for the provider that will answer it.',
  permission: 'operator',
  decoder: 'clientIdOf (daemon/clienttools/validate.ts)',
  params: requestId,
  body: { type: 'object', required: ['client_id'], properties: { client_id: clientId } },
  output: requestViewSchema,
});

/** A result may carry images: a larger body than the other routes. */
export const CLIENT_TOOL_RESULT_BODY_BYTES = 8 * 1024 * 1024;

export const clientToolsResult = operatorRoute({
  name: 'clientTools.result',
  method: 'POST',
  path: '/api/v1/client-tools/requests/:id/result',
  summary: "Answers a claimed call: content blocks, or the app's own error.",
  permission: 'operator',
  decoder: 'decodeResult (daemon/clienttools/validate.ts)',
  bodyLimit: CLIENT_TOOL_RESULT_BODY_BYTES,
  params: requestId,
  body: appResultSchema,
  output: settledSchema,
});

export const clientToolsStdio = operatorRoute({
  name: 'clientTools.stdio',
  method: 'POST',
  path: '/api/v1/client-tools/stdio',
  summary: "A stdio child's one registration, as the stdio limits table allows.",
  permission: 'operator',
  decoder: 'decodeStdioRegistration (daemon/clienttools/stdio-routes.ts)',
  body: {
    type: 'object',
    required: ['client_id', 'tools'],
    properties: {
      client_id: clientId,
      server_id: { type: ['string', 'null'] },
      // Effective descriptors, as the child validated them (catalog/stdio-tools.ts).
      tools: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'description', 'input_schema', 'timeout_ms'],
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            input_schema: { type: 'object' },
            timeout_ms: { type: 'integer' },
          },
        },
      },
    },
  },
  output: registeredSchema,
});

export const clientToolsReply = operatorRoute({
  name: 'clientTools.reply',
  method: 'POST',
  path: '/api/v1/client-tools/requests/:id/reply',
  summary: "A stdio child's answer: status, text and structured content.",
  permission: 'operator',
  decoder: 'decodeStdioReply (daemon/clienttools/stdio-routes.ts)',
  params: requestId,
  body: {
    type: 'object',
    required: ['client_id', 'status', 'text'],
    properties: {
      client_id: clientId,
      status: { enum: ['success', 'error'] },
      text: { type: 'string' },
      structured: {},
    },
  },
  output: settledSchema,
});

export const clientToolsOffered = operatorRoute({
  name: 'clientTools.offered',
  method: 'GET',
  path: '/api/v1/client-tools',
  summary: 'Every offered tool with its fingerprint, and the inventory revision.',
  permission: 'operator',
  output: {
    type: 'object',
    required: ['revision', 'tools'],
    properties: {
      revision: { type: 'integer' },
      tools: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'group', 'fingerprint'],
          properties: {
            name: { type: 'string' },
            group: { type: 'string' },
            fingerprint: { type: 'string' },
            timeout_ms: { type: 'integer' },
            timeout_s: { type: 'integer' },
          },
        },
      },
    },
  },
});

export const clientToolsScope = operatorRoute({
  name: 'clientTools.scope',
  method: 'PUT',
  path: '/api/v1/client-tools/scopes/:authorizationId/:threadId',
  summary: "Saves a delegated thread's scope: the tools (by fingerprint) it may call.",
  permission: 'operator',
  decoder: 'decodeScope (daemon/clienttools/stdio-routes.ts)',
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['authorizationId', 'threadId'],
    properties: { authorizationId: { type: 'string' }, threadId: { type: 'string' } },
  },
  body: {
    type: 'object',
    required: ['task_id', 'tools'],
    properties: {
      task_id: { type: 'string' },
      tools: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'fingerprint'],
          properties: { name: { type: 'string' }, fingerprint: { type: 'string' } },
        },
      },
    },
  },
  output: scopeSavedSchema,
});

export const events = operatorRoute({
  name: 'events.open',
  method: 'GET',
  path: '/api/v1/events',
  summary:
    'The event stream (SSE): a hello frame, messages, approvals, tasks, turns and tool cards as they happen, client-tool calls with client_tools=1, daemon.log lines with logs=1.',
  permission: 'operator',
  invalid: 'invalid_request',
  query: {
    type: 'object',
    properties: {
      client_tools: { enum: ['0', '1'] },
      logs: { enum: ['0', '1'] },
      heartbeat_s: { type: 'string' },
    },
  },
  output: anyObject,
  stream: {
    kind: 'sse',
    event: {
      type: 'object',
      description: `The data of one event; its SSE event name is its type, one of: ${Object.entries(
        EVENT_KINDS,
      )
        .map(([kind, holds]) => `${kind} (${holds})`)
        .join('; ')}.`,
    },
  },
});
