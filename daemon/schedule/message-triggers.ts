import type { MessageApi } from '../store/messages.js';

/** What reacts to a stored message (workflow message triggers). */
export interface MessageListener {
  onMessage(serverId: string, target: string, messageId: string): void;
}

/**
 * The message API every sender uses (MCP tools, operator routes, scheduled
 * deliveries), with message triggers run after each stored message. A
 * listener failure is contained: the message is stored either way.
 */
export function withMessageTriggers(messages: MessageApi, listener: MessageListener): MessageApi {
  return {
    send(input) {
      const record = messages.send(input);
      try {
        listener.onMessage(input.serverId, record.target, record.id);
      } catch (err) {
        process.stderr.write(`message trigger failed: ${(err as Error).message}\n`);
      }
      return record;
    },
    history: (q) => messages.history(q),
    react: (i) => messages.react(i),
  };
}
