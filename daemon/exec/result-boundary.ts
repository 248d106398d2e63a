import type { InventoryRow } from '../../catalog/inventory.js';
import { ExecError } from '../errors.js';
import { mutationReceipt } from './receipt.js';

/** The serialized success envelope budget shared by Exec and MCP tools/call. */
export const RESULT_BUDGET_BYTES = 64 * 1024;

/** What the boundary needs to know about an action: its risk and its inventory policies. */
export type BoundaryPolicy = Pick<InventoryRow, 'domain' | 'action' | 'risk' | 'result' | 'receipt'>;

export type BoundaryOutcome =
  | { readonly ok: true; readonly body: string }
  | { readonly ok: false; readonly error: ExecError };

export interface BoundaryOptions {
  readonly budgetBytes?: number;
  /** Builds the envelope that is measured and returned; default `{ok: true, data}`. */
  readonly wrap?: (data: unknown) => unknown;
  /** Turns the serialized envelope into the complete frame as sent; that frame is what the budget measures. */
  readonly frame?: (json: string) => string;
}

/**
 * The one gate every result passes: a complete envelope within budget is
 * returned byte for byte as serialized here; anything else becomes an error
 * and is never truncated. Transport-neutral: the caller decides how to send
 * `body` or `error`.
 */
export function boundResult(policy: BoundaryPolicy, input: unknown, data: unknown, opts: BoundaryOptions = {}): BoundaryOutcome {
  const budget = opts.budgetBytes ?? RESULT_BUDGET_BYTES;
  const wrap = opts.wrap ?? ((d: unknown) => ({ ok: true, data: d }));
  let body: string | undefined;
  try {
    body = data === undefined ? undefined : JSON.stringify(wrap(data));
    if (body !== undefined && opts.frame) body = opts.frame(body);
  } catch {
    body = undefined;
  }
  return boundSerialized(policy, input, data, body, budget);
}

/**
 * The size half of the boundary for a result already serialized (the result
 * gate serializes once to look for secrets, then bounds the same string).
 * `body` undefined means serialization failed.
 */
export function boundSerialized(policy: BoundaryPolicy, input: unknown, data: unknown, body: string | undefined, budget = RESULT_BUDGET_BYTES): BoundaryOutcome {
  if (body === undefined) return { ok: false, error: unserializable(policy, input) };
  if (body.length <= budget / 3 || Buffer.byteLength(body, 'utf8') <= budget) return { ok: true, body };
  if (policy.risk === 'read') return { ok: false, error: readOverBudget(policy, input) };
  return { ok: false, error: mutationOverBudget(policy, input, data) };
}

function readOverBudget(policy: BoundaryPolicy, input: unknown): ExecError {
  return new ExecError('result_budget_exceeded', `the result of ${policy.domain} ${policy.action} is larger than the ${RESULT_BUDGET_BYTES / 1024} KiB budget`, {
    hint: policy.result.hint,
    next: { action: policy.result.next.action, input: fillPlaceholders(policy.result.next.input, input) },
  });
}

/** Serialization failed: a read gets its continuation advice; a mutation fails closed, with no claim either way. */
function unserializable(policy: BoundaryPolicy, input: unknown): ExecError {
  if (policy.risk === 'read') return readOverBudget(policy, input);
  return new ExecError('internal', `the result of ${policy.domain} ${policy.action} could not be serialized; check the resource before trying again`);
}

/**
 * The mutation may have committed, so say so, with a receipt of allowlisted
 * selectors only (never free-text fields) and a retrieval call rebuilt from them.
 */
function mutationOverBudget(policy: BoundaryPolicy, input: unknown, data: unknown): ExecError {
  const receipt = policy.receipt ? mutationReceipt(policy.receipt, data, input) : {};
  return new ExecError('result_budget_exceeded', `${policy.domain} ${policy.action} was applied, but its result is larger than the ${RESULT_BUDGET_BYTES / 1024} KiB budget`, {
    metadata: { mutation_applied: true, mutation_receipt: receipt },
  });
}

/** Replaces `<...>` placeholders of an inventory `next` input with the caller's own values where it sent them. */
function fillPlaceholders(template: Readonly<Record<string, unknown>>, input: unknown): Record<string, unknown> {
  const given = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(template)) {
    out[k] = typeof v === 'string' && /^<.*>$/.test(v) && typeof given[k] === 'string' ? given[k] : v;
  }
  return out;
}
