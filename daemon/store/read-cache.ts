import type { SqlStore } from './sql.js';
import { deepFreeze } from '../../lib/deep-freeze.js';

/**
 * A small cache of values read from the store, valid only while the database
 * has not changed since they were read. "Changed" is decided by the driver,
 * not by the callers: `sql.changeCounter()` moves whenever anything is
 * committed (on SQLite: any commit by this connection or another one, seen
 * in the WAL-index header, store/wal-header.ts), so no
 * write path can forget to invalidate the cache. When the driver cannot tell
 * (a shared PostgreSQL, or SQLite while one of the store's transactions is
 * open) the counter is null and nothing is read from or put into the cache.
 *
 * The check costs one `pread` of the WAL-index header on SQLite (~3.4 µs on
 * the development machine); the indexed read it saves costs ~9.6 µs.
 * Entries are frozen all the way down (lib/deep-freeze.ts): a caller that
 * tried to change a shared value would throw, and the result gate may keep
 * an entry's screened answer by its identity.
 *
 * Use: `get`; on a miss, read the value and `set` it. A value is kept only if
 * the counter has not moved between the miss and the `set`, so a write that
 * lands while the read is awaited (or between the miss and the read) leaves
 * it uncached; a `set` without a preceding miss for its key is ignored.
 */
export class ReadCache<V extends object> {
  private readonly values = new Map<string, V>();
  /** Keys that missed, with the counter they missed at; a `set` needs one. */
  private readonly missed = new Map<string, number>();
  private counter = -1;

  constructor(
    private readonly sql: SqlStore,
    private readonly limit = 1024,
  ) {}

  /** `since`: when the caller's request was read, for a change check made after it to be shared (SqlStore.changeCounter). */
  get(key: string, since?: number): V | undefined {
    const counter = this.sql.changeCounter(since);
    if (counter === null) return undefined;
    if (counter !== this.counter) {
      this.values.clear();
      this.missed.clear();
      this.counter = counter;
    }
    const value = this.values.get(key);
    if (value === undefined) {
      // Reads that fail (not found) never come back to `set`: keep the list bounded.
      if (this.missed.size >= this.limit) this.missed.clear();
      this.missed.set(key, counter);
    }
    return value;
  }

  /** Stores a value read after a `get` miss for `key`, if nothing changed since; ignored otherwise. */
  set(key: string, value: V): V {
    const at = this.missed.get(key);
    if (at === undefined) return value;
    this.missed.delete(key);
    if (at !== this.counter || this.sql.changeCounter() !== at) return value;
    if (this.values.size >= this.limit) this.values.clear();
    this.values.set(key, deepFreeze(value));
    return value;
  }
}
