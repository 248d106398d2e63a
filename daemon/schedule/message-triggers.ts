import type { MessageApi, SendMessage } from '../store/messages.js';
import type { MessageRecord } from '../../catalog/mcp-tools.js';
import type { SqlStore, SqlTx } from '../store/sql.js';

/** What reacts to a stored message (workflow message triggers), inside the transaction that stores it. */
interface MessageListener {
  onMessage(q: SqlTx, serverId: string, target: string, messageId: string): Promise<void>;
}

/**
 * The message API every sender uses (MCP tools, operator routes, scheduled
 * deliveries), with message triggers run after each stored message, in the
 * same transaction: the caller's when it passes one, else one of its own.
 * The listener runs under a savepoint, so a listener failure is contained
 * (logged, its own changes undone): the message is stored either way.
 */
export function withMessageTriggers(
  messages: MessageApi,
  listener: MessageListener,
  sql: SqlStore,
  log: (message: string) => void,
): MessageApi {
  const logFailure = (err: unknown) => log(String((err as Error)?.message ?? err));
  /** Stores the message and runs the listener; returns the listener's failure instead of logging it. */
  const sendOn = async (
    input: SendMessage,
    q: SqlTx,
  ): Promise<{ record: MessageRecord; failed: boolean; error?: unknown }> => {
    const record = await messages.send(input, q);
    const ran = await q.attempt((inner) =>
      listener.onMessage(inner, input.serverId, record.target, record.id),
    );
    return ran.ok ? { record, failed: false } : { record, failed: true, error: ran.error };
  };
  return {
    async send(input, q) {
      if (q) {
        // Inside the caller's transaction: there is no later point to report at.
        const { record, failed, error } = await sendOn(input, q);
        if (failed) logFailure(error);
        return record;
      }
      // The transaction may be re-run (PostgreSQL retry): report the failure of the run that committed only.
      const { record, failed, error } = await sql.tx((t) => sendOn(input, t));
      if (failed) logFailure(error);
      return record;
    },
    history: (q) => messages.history(q),
    react: (i) => messages.react(i),
  };
}
