import type {
  MessageHistoryInput,
  MessageReactInput,
  MessageSendInput,
} from '../../catalog/mcp-tools.js';
import type { MessageApi } from '../store/messages.js';
import type { ToolHandler } from '../tools/contracts.js';

/**
 * Handlers of the message tools. Arguments arrive validated against the
 * tool's inputSchema; the author is always the authenticated agent, never a
 * field the model could set.
 */
export function messageToolHandlers(messages: MessageApi): Record<string, ToolHandler> {
  return {
    message_send: async (args, ctx) => {
      const a = args as MessageSendInput;
      return {
        message: await messages.send({
          serverId: ctx.principal.serverId,
          target: a.target,
          content: a.content,
          replyTo: a.replyTo,
          author: `agent:${ctx.principal.agentId}`,
        }),
      };
    },
    message_history_read: (args, ctx) => {
      const a = args as MessageHistoryInput;
      return messages.history({
        serverId: ctx.principal.serverId,
        target: a.target,
        limit: a.limit,
        cursor: a.cursor,
      });
    },
    message_react: async (args, ctx) => {
      const a = args as MessageReactInput;
      return {
        message: await messages.react({
          serverId: ctx.principal.serverId,
          messageId: a.messageId,
          emoji: a.emoji,
          author: `agent:${ctx.principal.agentId}`,
        }),
      };
    },
  };
}
