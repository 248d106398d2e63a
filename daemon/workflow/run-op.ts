import { actionKey, callRisk, type ActionDescriptor } from '../../catalog/descriptor.js';
import type { StoreContext } from '../store/context.js';
import type { Caller } from '../store/server-api.js';
import type { Sql } from '../store/sql.js';

/**
 * Runs one workflow op with the idempotency its risk implies: side-effect
 * ops go through the idempotency record (one transaction with their effect,
 * `apply` gets its handle); read ops read through the store outside any
 * transaction. Which fields an op takes (a read takes no idempotency
 * selector) was checked against the catalog's op rules before the call.
 */
export async function runOp<T>(
  s: StoreContext,
  c: Caller,
  action: ActionDescriptor,
  input: Record<string, unknown> & { idempotencyKey?: string },
  apply: (q: Sql) => Promise<T>,
): Promise<T> {
  if (callRisk(action, input) === 'read') return apply(s.sql);
  return s.idempotency.run(c, actionKey(action), input, apply);
}
