import type { Idempotency } from './idempotency.js';
import type { CursorCodec } from './cursor.js';
import type { StoreNotices } from './notices.js';
import type { SqlStore } from './sql.js';

/** What every entity store of the team server shares. */
export interface StoreContext {
  /** The database, SQLite or PostgreSQL, through one async interface. */
  readonly sql: SqlStore;
  readonly now: () => number;
  readonly idempotency: Idempotency;
  readonly cursors: CursorCodec;
  /** Where committed writes of messages, approvals and tasks are announced. */
  readonly notices: StoreNotices;
}
