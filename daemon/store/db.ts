import Database from 'better-sqlite3';
import { runMigrations, type Migration } from './migrations.js';

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
/**
 * SQLite's page cache per connection, in KiB. better-sqlite3 builds SQLite
 * with a 16 MB default, which the daemon's RSS grows into page by page as the
 * store grows (the soak benchmark showed it as a steady climb that looked
 * like a leak). 4 MiB holds the hot indexes and recent rows; a miss is a
 * read from the OS page cache, a few µs.
 */
const PAGE_CACHE_KIB = 4096;

export function openDb(path: string, migrations: readonly Migration[]): Db {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    db.pragma('foreign_keys = ON');
    runMigrations(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
