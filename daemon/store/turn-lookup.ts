import type { Sql } from './sql.js';

/**
 * The reads the turn check needs from the product store: a message's target
 * and author, whether an agent has written in a target, whether a task
 * exists. Scoped by server like every other store read.
 */
export interface TurnLookup {
  message(serverId: string, id: string): Promise<{ target: string; author: string } | null>;
  hasWritten(serverId: string, target: string, author: string): Promise<boolean>;
  /** Whether `author` wrote to `target` at or after `since` (a turn that ended in silence shows replied: false). */
  wroteSince(serverId: string, target: string, author: string, since: number): Promise<boolean>;
  taskExists(serverId: string, taskId: string): Promise<boolean>;
  /** The message with its text (a turn's prompt, a thread's root), or null. */
  messageText(serverId: string, id: string): Promise<MessageText | null>;
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
    message: async (serverId, id) =>
      (await sql.get<{ target: string; author: string }>(
        'SELECT target, author FROM messages WHERE server_id = ? AND id = ?',
        [serverId, id],
      )) ?? null,
    hasWritten: async (serverId, target, author) =>
      (await sql.get(
        'SELECT 1 AS one FROM messages WHERE server_id = ? AND target = ? AND author = ? LIMIT 1',
        [serverId, target, author],
      )) !== undefined,
    wroteSince: async (serverId, target, author, since) =>
      (await sql.get(
        'SELECT 1 AS one FROM messages WHERE server_id = ? AND target = ? AND author = ? AND created_at >= ? LIMIT 1',
        [serverId, target, author, since],
      )) !== undefined,
    taskExists: async (serverId, taskId) =>
      (await sql.get('SELECT 1 AS one FROM tasks WHERE server_id = ? AND id = ?', [
        serverId,
        taskId,
      ])) !== undefined,
    messageText: async (serverId, id) => {
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
