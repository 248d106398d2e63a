import type { MessageApi } from '../store/messages.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { TurnService } from '../turns/service.js';
import { actingPerson } from './auth.js';

/**
 * The operator's (a person's) side of messages (catalog/operator/messages.ts):
 * post as human:<handle> (which queues a turn for each agent the message
 * addresses), read a target's history. The rows' schemas carry the
 * same content limits as message_send, so these handlers only call the store.
 */
export function messageOperatorHandlers(
  messages: MessageApi,
  turns: TurnService,
  person: () => string,
): Pick<OperatorHandlers, 'messages.post' | 'messages.history'> {
  return {
    'messages.post': async ({ body }, c) => {
      // A person's message: a paired device's only as the profile's person.
      if (body.author.startsWith('human:')) actingPerson(c, body.author, person());
      const message = await messages.send(body);
      // Stored first, then routed: a failure to queue is answered as an error, the message stays stored.
      return { message, turns: await turns.deliver(body.serverId, message) };
    },
    'messages.history': ({ query: { limit, ...q } }) =>
      messages.history({ ...q, ...(limit !== undefined ? { limit: Number(limit) } : {}) }),
  };
}
