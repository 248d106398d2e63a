import Database from 'better-sqlite3';
import { runMigrations, type Migration } from './migrations.js';
import { MIGRATIONS } from './schema.js';

export type Db = Database.Database;

/**
 * Opens the store with the settings the durability promise depends on:
 * WAL so readers never block the writer, synchronous=FULL so a commit that was
 * acknowledged is on disk before the response leaves (survives kill -9 and
 * power loss of the WAL), and a busy timeout in case another process (a CLI
 * tool, a test) holds the write lock briefly.
 *
 * Locking is SQLite's normal WAL locking, not `locking_mode=EXCLUSIVE`: other
 * processes (sqlite3, backup tools, support scripts) can read the store while
 * the daemon runs, at the cost of the shared-memory lock round trip on each
 * transaction (measured in README, Performance).
 */
export function openDb(path: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    runMigrations(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
