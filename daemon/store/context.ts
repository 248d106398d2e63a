import type { Db } from './db.js';
import type { Idempotency } from './idempotency.js';
import type { CursorCodec } from '../exec/cursor.js';

/** What every entity store of the embedded server shares. */
export interface StoreContext {
  readonly db: Db;
  readonly now: () => number;
  readonly idempotency: Idempotency;
  readonly cursors: CursorCodec;
}
