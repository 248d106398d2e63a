import type { Sql } from './sql.js';

/**
 * The reads the turn check needs from the product store: a message's target
 * and author, whether an agent has written in a target, whether a task
 * exists. Scoped by server like every other store read.
 */
export interface TurnLookup {
  message(serverId: string, id: string): Promise<{ target: string; author: string } | null>;
  hasWritten(serverId: string, target: string, author: string): Promise<boolean>;
  taskExists(serverId: string, taskId: string): Promise<boolean>;
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
    taskExists: async (serverId, taskId) =>
      (await sql.get('SELECT 1 AS one FROM tasks WHERE server_id = ? AND id = ?', [
        serverId,
        taskId,
      ])) !== undefined,
  };
}
