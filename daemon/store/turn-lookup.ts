import type { Database, Statement } from 'better-sqlite3';

/**
 * The reads the turn check needs from the product store: a message's target
 * and author, whether an agent has written in a target, whether a task
 * exists. Scoped by server like every other store read.
 */
export interface TurnLookup {
  message(serverId: string, id: string): { target: string; author: string } | null;
  hasWritten(serverId: string, target: string, author: string): boolean;
  taskExists(serverId: string, taskId: string): boolean;
}

export function createTurnLookup(db: Database): TurnLookup {
  const msg: Statement = db.prepare('SELECT target, author FROM messages WHERE server_id = ? AND id = ?');
  const wrote: Statement = db.prepare('SELECT 1 FROM messages WHERE server_id = ? AND target = ? AND author = ? LIMIT 1');
  const task: Statement = db.prepare('SELECT 1 FROM tasks WHERE server_id = ? AND id = ?');
  return {
    message: (serverId, id) => (msg.get(serverId, id) as { target: string; author: string } | undefined) ?? null,
    hasWritten: (serverId, target, author) => wrote.get(serverId, target, author) !== undefined,
    taskExists: (serverId, taskId) => task.get(serverId, taskId) !== undefined,
  };
}
