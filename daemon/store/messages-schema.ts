import type { Migration } from './migrations.js';

/**
 * The message table, appended to the store's migration list (schema.ts).
 * Scoped by server_id like every other table: one embedded store stands in
 * for one team server per serverId.
 */
export const MESSAGES_MIGRATION: Migration = {
  id: '002_messages',
  up(db) {
    db.exec(`
    CREATE TABLE messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      server_id TEXT NOT NULL,
      target TEXT NOT NULL,
      author TEXT NOT NULL,
      content TEXT NOT NULL,
      reply_to TEXT,
      reactions TEXT NOT NULL DEFAULT '[]',
      created_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX messages_by_target ON messages (server_id, target, seq DESC);
    `);
  },
};
