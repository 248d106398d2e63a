import { ENTITY_ID_PATTERN } from '../ids.js';
import { AUTHOR_PATTERN, MESSAGE_ID_PATTERN, TARGET_PATTERN, messageSend } from '../mcp-tools.js';
import { operatorRoute } from './route.js';
import { queuedTurnsSchema } from './turns.js';

/** The operator's (a person's) side of messages: post as human:<handle>, read a target's history. */

const message = messageSend.outputSchema.properties.message;

export const messagesPost = operatorRoute({
  name: 'messages.post',
  method: 'POST',
  path: '/api/v1/messages',
  summary:
    'Posts a message as a person (human:<handle>) to one exact target, and queues a turn for each agent of the profile it addresses.',
  permission: 'operator',
  status: 201,
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['serverId', 'target', 'author', 'content'],
    properties: {
      serverId: { type: 'string', pattern: ENTITY_ID_PATTERN },
      target: { type: 'string', pattern: TARGET_PATTERN },
      author: { type: 'string', pattern: AUTHOR_PATTERN.replace('(agent|human)', 'human') },
      // The same content limits as message_send: a person's message must fit a page of one just the same.
      content: messageSend.inputSchema.properties.content,
      replyTo: { type: 'string', pattern: MESSAGE_ID_PATTERN },
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['message', 'turns'],
    properties: { message, turns: queuedTurnsSchema },
  },
});

export const messagesHistory = operatorRoute({
  name: 'messages.history',
  method: 'GET',
  path: '/api/v1/messages',
  summary: "One page of a target's messages, newest first.",
  permission: 'operator',
  query: {
    type: 'object',
    additionalProperties: false,
    required: ['serverId', 'target'],
    properties: {
      serverId: { type: 'string', pattern: ENTITY_ID_PATTERN },
      target: { type: 'string', pattern: TARGET_PATTERN },
      limit: { type: 'string', pattern: '^([1-9]|[1-4][0-9]|50)$' },
      cursor: { type: 'string', minLength: 1, maxLength: 512 },
    },
  },
  output: {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'messages', 'hasMore'],
    properties: {
      target: { type: 'string' },
      messages: { type: 'array', items: message },
      hasMore: { type: 'boolean' },
      nextCursor: { type: 'string' },
    },
  },
});
