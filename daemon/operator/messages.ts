import type { MessageApi } from '../store/messages.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';

/**
 * The operator's (a person's) side of messages (catalog/operator/messages.ts):
 * post as human:<handle>, read a target's history. The rows' schemas carry the
 * same content limits as message_send, so these handlers only call the store.
 */
export function messageOperatorHandlers(
  messages: MessageApi,
): Pick<OperatorHandlers, 'messages.post' | 'messages.history'> {
  return {
    'messages.post': async ({ body }) => ({ message: await messages.send(body) }),
    'messages.history': ({ query: { limit, ...q } }) =>
      messages.history({ ...q, ...(limit !== undefined ? { limit: Number(limit) } : {}) }),
  };
}
