import type { Sql } from './sql.js';

/**
 * The reads turns need from the product store: a message, whether an agent
 * has written in a target, a task's existence and assignee, who answered in
 * a thread. Scoped by server like every other store read.
 */
export interface TurnLookup {
  /** The message with its text (a turn's prompt, a thread's root, the message a turn is bound to), or null. */
  message(serverId: string, id: string): Promise<MessageText | null>;
  /**
   * Whether `author` wrote to `target`, at all or at or after `since` (a
   * turn that ended in silence shows replied: false).
   */
  wrote(serverId: string, target: string, author: string, since?: number): Promise<boolean>;
  taskExists(serverId: string, taskId: string): Promise<boolean>;
  /** The distinct `agent:` authors of a target (at most `limit`): who already answered in a thread. */
  agentAuthors(serverId: string, target: string, limit: number): Promise<string[]>;
  /** A task's assignee, or null (no such task, or unassigned). */
  taskAssignee(serverId: string, taskId: string): Promise<string | null>;
}

export interface MessageText {
  readonly id: string;
  readonly target: string;
  readonly author: string;
  readonly content: string;
  readonly createdAt: number;
}

export function createTurnLookup(sql: Sql): TurnLookup {
  return {
    message: async (serverId, id) => {
      const r = await sql.get<{
        target: string;
        author: string;
        content: string;
        created_at: number;
      }>(
        'SELECT target, author, content, created_at FROM messages WHERE server_id = ? AND id = ?',
        [serverId, id],
      );
      return r
        ? { id, target: r.target, author: r.author, content: r.content, createdAt: r.created_at }
        : null;
    },
    wrote: async (serverId, target, author, since) =>
      (await sql.get(
        `SELECT 1 AS one FROM messages WHERE server_id = ? AND target = ? AND author = ?${since === undefined ? '' : ' AND created_at >= ?'} LIMIT 1`,
        since === undefined ? [serverId, target, author] : [serverId, target, author, since],
      )) !== undefined,
    taskExists: async (serverId, taskId) =>
      (await sql.get('SELECT 1 AS one FROM tasks WHERE server_id = ? AND id = ?', [
        serverId,
        taskId,
      ])) !== undefined,
    agentAuthors: async (serverId, target, limit) =>
      (
        await sql.all<{ author: string }>(
          "SELECT DISTINCT author FROM messages WHERE server_id = ? AND target = ? AND author LIKE 'agent:%' LIMIT ?",
          [serverId, target, limit],
        )
      ).map((r) => r.author),
    taskAssignee: async (serverId, taskId) =>
      (
        await sql.get<{ assignee: string | null }>(
          'SELECT assignee FROM tasks WHERE server_id = ? AND id = ?',
          [serverId, taskId],
        )
      )?.assignee ?? null,
  };
}
