import type { InventoryRow } from '../../catalog/inventory.js';
import { ExecError } from '../errors/exec-error.js';
import { mutationReceipt } from './receipt.js';
import { continuationOf } from './continuation.js';
import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import type { Masked } from '../masking/masked.js';

export { RESULT_BUDGET_BYTES };

/** What the boundary needs to know about an action: its risk and its inventory policies. */
export type BoundaryPolicy = Pick<
  InventoryRow,
  'domain' | 'action' | 'risk' | 'result' | 'receipt'
>;

export type BoundaryOutcome =
  | { readonly ok: true; readonly body: Masked }
  | { readonly ok: false; readonly error: ExecError };

export interface BoundaryOptions {
  readonly budgetBytes?: number;
  /** Builds the envelope that is measured and returned; default `{ok: true, data}`. */
  readonly wrap?: (data: unknown) => unknown;
  /** Turns the serialized envelope into the complete frame as sent; that frame is what the budget measures. */
  readonly frame?: (json: string) => string;
}

/**
 * The size half of the result gate, for a result the gate has masked,
 * serialized and framed: a complete envelope within budget is returned byte
 * for byte; anything else becomes an error and is never truncated. Only the
 * gate calls this (daemon/results/gate.ts `json`): `body` is `Masked`, and
 * `data` is the masked copy the body was made from, so the continuation
 * advice measures masked candidates. `body` undefined means serialization
 * failed. `opts` are those the body was made with.
 */
export function boundSerialized(
  policy: BoundaryPolicy,
  input: unknown,
  data: unknown,
  body: Masked | undefined,
  opts: BoundaryOptions = {},
): BoundaryOutcome {
  const budget = opts.budgetBytes ?? RESULT_BUDGET_BYTES;
  const wrap = opts.wrap ?? ((d: unknown) => ({ ok: true, data: d }));
  const fits = (sent: string) =>
    sent.length <= budget / 3 || Buffer.byteLength(sent, 'utf8') <= budget;
  if (body === undefined) return { ok: false, error: unserializable(policy, input) };
  if (fits(body)) return { ok: true, body };
  if (policy.risk === 'read') {
    // A candidate page is measured exactly as this one was: envelope, then frame.
    const measure = (candidate: unknown) => {
      const json = JSON.stringify(wrap(candidate));
      return fits(opts.frame ? opts.frame(json) : json);
    };
    return { ok: false, error: readOverBudget(policy, input, data, measure) };
  }
  return { ok: false, error: mutationOverBudget(policy, input, data) };
}

/** The action as a caller names it in `next`: "task list" on Exec, the tool name on MCP. */
function selfName(policy: BoundaryPolicy): string {
  return policy.domain === 'mcp' ? policy.action : `${policy.domain} ${policy.action}`;
}

/** Continuation advice computed from the caller's own input and the result that did not fit (daemon/results/continuation.ts). */
function readOverBudget(
  policy: BoundaryPolicy,
  input: unknown,
  data: unknown,
  fits: (candidate: unknown) => boolean,
): ExecError {
  const c = continuationOf(selfName(policy), policy.result, input, data, fits);
  return new ExecError(
    'result_budget_exceeded',
    `the result of ${policy.domain} ${policy.action} is larger than the ${RESULT_BUDGET_BYTES / 1024} KiB budget`,
    {
      hint: c.hint,
      ...(c.next ? { next: { action: c.next.action, input: c.next.input } } : {}),
    },
  );
}

/** Serialization failed: a read gets what advice its input allows; a mutation fails closed, with no claim either way. */
function unserializable(policy: BoundaryPolicy, input: unknown): ExecError {
  if (policy.risk === 'read') return readOverBudget(policy, input, undefined, () => false);
  return new ExecError(
    'internal',
    `the result of ${policy.domain} ${policy.action} could not be serialized; check the resource before trying again`,
  );
}

/**
 * The mutation may have committed, so say so, with a receipt of allowlisted
 * selectors only (never free-text fields) and a retrieval call rebuilt from them.
 */
function mutationOverBudget(policy: BoundaryPolicy, input: unknown, data: unknown): ExecError {
  const receipt = policy.receipt ? mutationReceipt(policy.receipt, data, input) : {};
  return new ExecError(
    'result_budget_exceeded',
    `${policy.domain} ${policy.action} was applied, but its result is larger than the ${RESULT_BUDGET_BYTES / 1024} KiB budget`,
    {
      metadata: { mutation_applied: true, mutation_receipt: receipt },
    },
  );
}
