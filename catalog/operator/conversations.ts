import { ENTITY_ID_PATTERN } from '../ids.js';
import { MESSAGE_ID_PATTERN, TARGET_PATTERN } from '../mcp-tools.js';
import { operatorRoute } from './route.js';

/**
 * A person's conversations: every target of a server with messages, and a
 * DM with each agent of the profile, most recent first, each with the
 * person's unread count; the person's read mark; the names a person may
 * mention (the profile's agents and teams).
 */

const person = { type: 'string', pattern: ENTITY_ID_PATTERN } as const;
const serverId = { type: 'string', pattern: ENTITY_ID_PATTERN } as const;
const target = { type: 'string', pattern: TARGET_PATTERN } as const;

export const conversationsList = operatorRoute({
  name: 'conversations.list',
  method: 'GET',
  path: '/api/v1/conversations',
  summary:
    "A person's conversations on one server, most recent first, each with their unread count (messages after their read mark not written by them, counted up to 100); DMs with agents of the profile that have no message yet come last.",
  permission: 'operator',
  query: {
    type: 'object',
    additionalProperties: false,
    required: ['serverId'],
    properties: {
      serverId,
      // The handle after `human:`; the profile's `person` (else `operator`) when left out.
      person,
      limit: { type: 'string', pattern: '^([1-9]|[1-9][0-9]|100)$' },
      cursor: { type: 'string', minLength: 1, maxLength: 512 },
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['person', 'conversations', 'hasMore'],
    properties: {
      person: { type: 'string' },
      conversations: {
        type: 'array',
        maxItems: 200,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['target', 'kind', 'lastMessageAt', 'lastAuthor', 'unread'],
          properties: {
            target: { type: 'string' },
            kind: { type: 'string', enum: ['channel', 'dm', 'thread', 'task'] },
            lastMessageAt: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            lastAuthor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            unread: { type: 'integer', minimum: 0, maximum: 100 },
          },
        },
      },
      hasMore: { type: 'boolean' },
      nextCursor: { type: 'string' },
    },
  },
});

export const conversationsNames = operatorRoute({
  name: 'conversations.names',
  method: 'GET',
  path: '/api/v1/conversations/names',
  summary:
    'Who a person may address: the person handle of the profile, its agents (for DMs and @mentions) and its teams (for @mentions).',
  permission: 'operator',
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['person', 'agents', 'teams'],
    properties: {
      person: { type: 'string' },
      agents: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'displayName'],
          properties: { id: { type: 'string' }, displayName: { type: 'string' } },
        },
      },
      teams: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['handle', 'displayName'],
          properties: { handle: { type: 'string' }, displayName: { type: 'string' } },
        },
      },
    },
  },
});

export const conversationsRead = operatorRoute({
  name: 'conversations.read',
  method: 'POST',
  path: '/api/v1/conversations/read',
  summary:
    "Moves a person's read mark of a target up to one of its messages (never back); answers what stays unread.",
  permission: 'operator',
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['serverId', 'target', 'upTo'],
    properties: {
      serverId,
      target,
      person,
      upTo: { type: 'string', pattern: MESSAGE_ID_PATTERN },
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'unread'],
    properties: { target: { type: 'string' }, unread: { type: 'integer', minimum: 0 } },
  },
});
