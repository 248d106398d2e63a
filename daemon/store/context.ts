import type { Db } from './db.js';
import type { Idempotency } from './idempotency.js';
import type { LegacyIdempotency } from './idempotency-legacy.js';
import type { CursorCodec } from '../exec/cursor.js';
import type { SqlStore } from './sql.js';

/** What every entity store of the embedded server shares. */
export interface StoreContext {
  /** @deprecated being replaced by `sql`; only unconverted stores still use it. */
  readonly db: Db;
  /** The database, SQLite or PostgreSQL, through one async interface. */
  readonly sql: SqlStore;
  readonly now: () => number;
  readonly idempotency: Idempotency;
  /** @deprecated the synchronous record, until every store is converted. */
  readonly legacyIdempotency: LegacyIdempotency;
  readonly cursors: CursorCodec;
}
