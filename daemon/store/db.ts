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
 * `exclusive` (the daemon's connection): the file lock is taken at the first
 * access and held until close, so no other process can read or write the
 * store while the daemon runs, and each transaction skips the shared-memory
 * lock round trip (a read costs several µs less under load).
 */
export function openDb(path: string, migrations: readonly Migration[] = MIGRATIONS, opts: { exclusive?: boolean } = {}): Db {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    if (opts.exclusive) db.pragma('locking_mode = EXCLUSIVE');
    runMigrations(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
