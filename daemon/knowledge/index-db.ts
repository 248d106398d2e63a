import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type IndexDb = Database.Database;

const SCHEMA_VERSION = '1';

/**
 * One index database (derived data, rebuilt from the folder at will):
 * `files` holds what was indexed (path, mtime, size, title); `chunks` is the
 * FTS5 table of passages. A passage's rowid is fileId * 2^16 + n, so a file's
 * passages are one rowid range and replacing them never scans the table.
 */
export const CHUNKS_PER_FILE = 65_536;

function create(db: IndexDb, mask: string): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS files (
      id INTEGER PRIMARY KEY,
      path TEXT NOT NULL UNIQUE,
      mtime_ms REAL NOT NULL,
      size INTEGER NOT NULL,
      title TEXT NOT NULL
    );
    CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
      body, file_id UNINDEXED, line_start UNINDEXED, line_end UNINDEXED,
      tokenize = 'unicode61 remove_diacritics 2'
    );
  `);
  db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)`).run(SCHEMA_VERSION);
  db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('mask', ?)`).run(mask);
}

/**
 * Opens (or creates) the index at path. A file that is not a usable index of
 * this schema, or whose text was masked with another set of secret values
 * (`mask`, the gate's fingerprint), is deleted and created anew; `fresh` says
 * the caller must build it from scratch.
 */
export function openIndexDb(path: string, mask: string): { db: IndexDb; fresh: boolean } {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    let db: IndexDb | null = null;
    try {
      db = new Database(path);
      db.pragma('journal_mode = WAL');
      // Derived data: a crash may lose the last commits, which the next rescan restores.
      db.pragma('synchronous = NORMAL');
      const hasMeta =
        db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'meta'`).get() !== undefined;
      const version = hasMeta
        ? (
            db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as
              | { value: string }
              | undefined
          )?.value
        : undefined;
      const complete =
        hasMeta &&
        (
          db.prepare(`SELECT value FROM meta WHERE key = 'built'`).get() as
            | { value: string }
            | undefined
        )?.value === '1';
      if (hasMeta && version !== SCHEMA_VERSION) throw new Error('schema mismatch');
      const masked = hasMeta
        ? (
            db.prepare(`SELECT value FROM meta WHERE key = 'mask'`).get() as
              | { value: string }
              | undefined
          )?.value
        : mask;
      if (masked !== mask) throw new Error('masked with other secrets');
      create(db, mask);
      return { db, fresh: !complete };
    } catch {
      db?.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    }
  }
  throw new Error(`cannot open the index at ${path}`);
}

export function markBuilt(db: IndexDb): void {
  db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('built', '1')`).run();
}
