import { actionKey, callRisk, type ActionDescriptor } from '../../catalog/descriptor.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from './context.js';
import type { Caller } from './server-api.js';
import type { Sql } from './sql.js';

/** Common fields every op may carry. */
const ALWAYS = new Set(['op']);
const PAGED = ['limit', 'cursor'];

function invalid(path: string, message: string): ExecError {
  return new ExecError('validation_failed', message, { details: [{ path, message }] });
}

/**
 * Checks one op's fields: each required field present, nothing the op does
 * not use (a field meant for another op is a mistake worth telling), paging
 * fields only on list-like ops, idempotencyKey only on side-effect ops.
 */
export function checkOpFields(
  input: Record<string, unknown>,
  required: readonly string[],
  optional: readonly string[],
  paged = false,
): void {
  const op = String(input.op);
  for (const f of required)
    if (input[f] === undefined) throw invalid(`/${f}`, `op ${op} needs ${f}`);
  const allowed = new Set([
    ...ALWAYS,
    ...required,
    ...optional,
    ...(paged ? PAGED : []),
    'idempotencyKey',
  ]);
  for (const k of Object.keys(input))
    if (!allowed.has(k)) throw invalid(`/${k}`, `op ${op} does not take ${k}`);
}

/**
 * Runs one workflow op with the idempotency the matrix implies: side-effect
 * ops go through the idempotency record (one transaction with their effect,
 * `apply` gets its handle); read ops refuse an idempotencyKey, as there is
 * nothing to replay, and read through the store outside any transaction.
 */
export async function runOp<T>(
  s: StoreContext,
  c: Caller,
  action: ActionDescriptor,
  input: Record<string, unknown> & { idempotencyKey?: string },
  apply: (q: Sql) => Promise<T>,
): Promise<T> {
  const risk = callRisk(action, input);
  if (risk === 'read') {
    if (input.idempotencyKey !== undefined)
      throw invalid(
        '/idempotencyKey',
        `op ${String(input.op)} only reads; idempotencyKey applies to side-effect ops`,
      );
    return apply(s.sql);
  }
  return s.idempotency.run(c, actionKey(action), input, apply);
}
