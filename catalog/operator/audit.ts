import { AUDIT_TRANSPORTS, AUDIT_VIAS } from '../audit.js';
import { ID_PATTERN } from '../common.js';
import { ENTITY_ID_BODY, ENTITY_ID_PATTERN } from '../ids.js';
import { operatorRoute } from './route.js';

/** The audit trail for the operator: pages, a follow cursor, and the summaries the console charts. */

const filters = {
  /** An agent id, or a person (`human:<handle>`) whose writes were recorded. */
  agent: { type: 'string', pattern: `^(human:)?${ENTITY_ID_BODY}$` },
  server: { type: 'string', pattern: ENTITY_ID_PATTERN },
  tool: { type: 'string', minLength: 1 },
  /** A number and a unit: 90s, 15m, 1h, 7d. */
  since: { type: 'string', pattern: '^[1-9][0-9]{0,8}[smhd]$' },
} as const;

const entrySchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'seq',
    'at',
    'serverId',
    'agentId',
    'authorizationId',
    'generationId',
    'runtime',
    'threadId',
    'via',
    'transport',
    'tool',
    'outcome',
    'durationMs',
    'requestBytes',
    'resultBytes',
    'traceId',
    'turnId',
  ],
  properties: {
    seq: { type: 'integer' },
    at: { type: 'string' },
    serverId: { type: 'string' },
    agentId: { type: 'string' },
    authorizationId: { type: 'string' },
    generationId: { type: 'string' },
    runtime: { type: 'string' },
    threadId: { type: ['string', 'null'] },
    via: { enum: AUDIT_VIAS },
    transport: { enum: AUDIT_TRANSPORTS },
    tool: { type: 'string' },
    outcome: { type: 'string' },
    durationMs: { type: 'number' },
    requestBytes: { type: 'integer' },
    resultBytes: { type: 'integer' },
    traceId: { type: ['string', 'null'] },
    turnId: { type: ['string', 'null'] },
    args: { type: 'string' },
    result: { type: 'string' },
  },
} as const;

export const auditList = operatorRoute({
  name: 'audit.list',
  method: 'GET',
  path: '/api/v1/audit',
  summary:
    'One page of recorded calls, newest first; with after=<seq> the rows written since, oldest first.',
  permission: 'operator',
  query: {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...filters,
      outcome: { type: 'string', pattern: '^[a-z_]{1,64}$' },
      /** Only the calls made in one delivered turn. */
      turn: { type: 'string', pattern: ID_PATTERN, maxLength: 64 },
      limit: { type: 'string', pattern: '^(100|[1-9][0-9]?)$' },
      cursor: { type: 'string' },
      after: { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$' },
    },
  },
  output: {
    type: 'object',
    required: ['entries'],
    properties: {
      entries: { type: 'array', items: entrySchema },
      hasMore: { type: 'boolean' },
      nextCursor: { type: 'string' },
      lastSeq: { type: 'integer' },
    },
  },
});

const summaryRow = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'calls', 'errors', 'p50Ms', 'p95Ms'],
  properties: {
    key: { type: 'string' },
    calls: { type: 'integer' },
    errors: { type: 'integer' },
    p50Ms: { type: 'number' },
    p95Ms: { type: 'number' },
  },
} as const;

const summaryQuery = { type: 'object', additionalProperties: false, properties: filters } as const;

export const auditSummary = operatorRoute({
  name: 'audit.summary',
  method: 'GET',
  path: '/api/v1/audit/summary',
  summary: 'Calls, errors and p50/p95 per tool and per agent (default: the last day).',
  permission: 'operator',
  query: summaryQuery,
  output: {
    type: 'object',
    required: ['since', 'byTool', 'byAgent'],
    properties: {
      since: { type: 'string' },
      byTool: { type: 'array', items: summaryRow },
      byAgent: { type: 'array', items: summaryRow },
    },
  },
});

export const auditMinutes = operatorRoute({
  name: 'audit.minutes',
  method: 'GET',
  path: '/api/v1/audit/minutes',
  summary: 'Calls and errors per minute (default: the last hour), for the console chart.',
  permission: 'operator',
  query: summaryQuery,
  output: {
    type: 'object',
    required: ['since', 'minutes'],
    properties: {
      since: { type: 'string' },
      minutes: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['minute', 'calls', 'errors'],
          properties: {
            minute: { type: 'string' },
            calls: { type: 'integer' },
            errors: { type: 'integer' },
          },
        },
      },
    },
  },
});
