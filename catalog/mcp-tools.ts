import type { FromSchema } from 'json-schema-to-ts';
import { timestampSchema } from './common.js';
import { LIMITS, lookupText, textLimit } from './limits.js';
import { ENTITY_ID_BODY } from './ids.js';
import { kbFetch, kbSearch, memorySearch } from './mcp-knowledge-tools.js';
import { defineTool, type ToolInputOf } from './mcp-tool-descriptor.js';

/**
 * The MCP tool inventory of the `agentteam` server: data only, no handlers.
 * It is disjoint from the Exec catalog by construction (messages are
 * MCP-owned; tasks, projects, reviews... are Exec-owned), and a test checks
 * that no tool name collides with an Exec domain.
 */

/** Message ids are store-issued: `msg_` and a sortable suffix. */
export const MESSAGE_ID_PATTERN = '^msg_[0-9A-Za-z]{6,40}$';

/**
 * An exact reply target. Each kind names its scope explicitly; there is no
 * "current conversation" shorthand and no default.
 */
export const TARGET_PATTERN = `^(channel:[a-z0-9][a-z0-9._-]{0,79}|dm:${ENTITY_ID_BODY}|thread:msg_[0-9A-Za-z]{6,40}|task:[a-z]+_[0-9A-Za-z]{6,40})$`;

/** `agent:<id>` uses the server/agent id grammar (catalog/ids.ts), so every leasable agent can author. */
export const AUTHOR_PATTERN = `^(agent|human):${ENTITY_ID_BODY}$`;

const targetSchema = {
  type: 'string',
  pattern: TARGET_PATTERN,
  maxLength: 140,
  'x-maxJsonBytes': 140,
  description:
    'Exact target, copied from the message you answer: channel:<name>, dm:<handle>, thread:<messageId> or task:<taskId>.',
} as const;

const messageIdSchema = {
  type: 'string',
  pattern: MESSAGE_ID_PATTERN,
  maxLength: 44,
  'x-maxJsonBytes': 44,
} as const;
const contentSchema = {
  type: 'string',
  minLength: 1,
  ...textLimit(LIMITS.messageContent),
} as const;
const emojiSchema = {
  type: 'string',
  pattern: `^\\S{1,${LIMITS.emoji.chars}}$`,
  ...textLimit(LIMITS.emoji),
  description: 'One emoji or :name:, no spaces.',
} as const;
/** agent:<agent id> or human:<handle>; both are bounded like agent ids. */
const authorSchema = {
  type: 'string',
  maxLength: 6 + LIMITS.agentId.chars,
  'x-maxJsonBytes': 6 + LIMITS.agentId.bytes,
} as const;

const messageSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'target', 'author', 'content', 'replyTo', 'reactions', 'createdAt'],
  properties: {
    id: messageIdSchema,
    target: targetSchema,
    author: { ...authorSchema, description: 'agent:<id> or human:<handle>.' },
    content: contentSchema,
    replyTo: { anyOf: [messageIdSchema, { type: 'null' }] },
    reactions: {
      type: 'array',
      maxItems: LIMITS.reactionEmoji,
      description: `At most ${LIMITS.reactionEmoji} distinct emoji per message, ${LIMITS.reactors} reactors per emoji and ${LIMITS.reactionEmojiPerReactor} emoji per reactor.`,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['emoji', 'authors'],
        properties: {
          emoji: emojiSchema,
          authors: { type: 'array', maxItems: LIMITS.reactors, items: authorSchema },
        },
      },
    },
    createdAt: timestampSchema,
  },
} as const;

const messageOutput = {
  type: 'object',
  additionalProperties: false,
  required: ['message'],
  properties: { message: messageSchema },
} as const;

export const messageSend = defineTool({
  name: 'message_send',
  title: 'Send a message',
  description:
    'Posts a message to one exact target; replyTo names the message you answer. Returns the stored message.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'content'],
    properties: {
      target: targetSchema,
      content: contentSchema,
      replyTo: { ...messageIdSchema, description: 'Id of the message you answer (same target).' },
    },
  },
  outputSchema: messageOutput,
  annotations: {
    title: 'Send a message',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  overBudget: {
    hint: 'The message was stored; read it back with message_history_read on the same target.',
    next: { action: 'message_history_read', input: { target: '<target>', limit: 1 } },
  },
});

const messageHistoryRead = defineTool({
  name: 'message_history_read',
  title: 'Read message history',
  description:
    'Reads the messages of one exact target, newest first. While hasMore, pass nextCursor as cursor with the same target.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['target'],
    properties: {
      target: targetSchema,
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 50,
        default: 20,
        description: 'Page size (at most 50).',
      },
      cursor: { type: 'string', minLength: 1, ...lookupText(512) },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'messages', 'hasMore'],
    properties: {
      target: targetSchema,
      messages: { type: 'array', maxItems: 50, items: messageSchema },
      hasMore: { type: 'boolean' },
      nextCursor: {
        type: 'string',
        maxLength: 512,
        'x-maxJsonBytes': 512,
        description: 'Present only when hasMore is true.',
      },
    },
  },
  annotations: { title: 'Read message history', readOnlyHint: true, openWorldHint: false },
  overBudget: {
    hint: 'The page is larger than the result budget.',
  },
});

const messageReact = defineTool({
  name: 'message_react',
  title: 'React to a message',
  description: `Adds your emoji reaction to a message (again is a no-op; at most ${LIMITS.reactionEmojiPerReactor} distinct emoji of yours per message).`,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['messageId', 'emoji'],
    properties: {
      messageId: messageIdSchema,
      emoji: emojiSchema,
    },
  },
  outputSchema: messageOutput,
  annotations: {
    title: 'React to a message',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  overBudget: {
    hint: 'The reaction was stored; read the message back with message_history_read.',
    next: { action: 'message_history_read', input: { target: '<target>', limit: 1 } },
  },
});

/** The complete inventory of the agentteam MCP route, in the order tools/list returns it. */
export const MCP_TOOLS = [
  messageSend,
  messageHistoryRead,
  messageReact,
  memorySearch,
  kbSearch,
  kbFetch,
] as const;

/** The MCP server name runtimes see (`mcp__agentteam__...`). */
export const MCP_SERVER_NAME = 'agentteam';

export type MessageRecord = FromSchema<typeof messageSchema>;
export type MessageSendInput = ToolInputOf<typeof messageSend>;
export type MessageHistoryInput = ToolInputOf<typeof messageHistoryRead>;
export type MessageReactInput = ToolInputOf<typeof messageReact>;
