import type { ReceiptPolicy } from './inventory.js';

/**
 * The closed mutation receipt: what a caller learns about a mutation whose
 * result was too large to return. Built by the daemon from the stored
 * entity, and rebuilt by the CLI from whatever arrived, with the same code,
 * so nothing outside this contract reaches a runtime.
 */

/** The only entity fields a receipt may carry, with their kinds (the inventory's selectors are a subset; the catalog checks it). */
const SELECTOR_KINDS = {
  id: 'string',
  taskId: 'string',
  target: 'string',
  revision: 'integer',
} as const;
export const RECEIPT_SELECTORS = Object.keys(SELECTOR_KINDS) as (keyof typeof SELECTOR_KINDS)[];

/** Idempotency selectors echoed from the caller's own input. */
export const RECEIPT_IDEMPOTENCY = ['idempotencyKey', 'requestId'] as const;

/** A selector value: a short printable-ASCII string or a safe integer. */
const SELECTOR_VALUE_MAX_BYTES = 160;
const SELECTOR_STRING = /^[\x21-\x7e]+$/;

function isSelectorValue(v: unknown): v is string | number {
  if (typeof v === 'number') return Number.isSafeInteger(v);
  return typeof v === 'string' && v.length <= SELECTOR_VALUE_MAX_BYTES && SELECTOR_STRING.test(v);
}

export interface Receipt {
  entity: string;
  [selector: string]: unknown;
}

/**
 * A receipt from `fields` (the entity as stored, or the fields a daemon sent):
 * only the policy's selectors with well-formed values, the caller's
 * idempotency selectors, and a retrieval call whose input holds every
 * required field of the retrieval action (`required`) filled from those
 * selectors. When a required field is missing, the receipt has no retrieval
 * rather than an incomplete one.
 */
export function buildReceipt(
  policy: ReceiptPolicy,
  fields: Readonly<Record<string, unknown>>,
  idempotency: Readonly<Record<string, unknown>>,
  required: readonly string[],
): Receipt {
  const receipt: Receipt = { entity: policy.entity };
  for (const name of policy.selectors) {
    const kind = Object.hasOwn(SELECTOR_KINDS, name)
      ? SELECTOR_KINDS[name as keyof typeof SELECTOR_KINDS]
      : undefined;
    const v = fields[name];
    if (!isSelectorValue(v)) continue;
    if (
      (kind === 'string' && typeof v === 'string') ||
      (kind === 'integer' && typeof v === 'number')
    )
      receipt[name] = v;
  }
  for (const name of RECEIPT_IDEMPOTENCY) {
    const v = idempotency[name];
    if (typeof v === 'string' && isSelectorValue(v)) receipt[name] = v;
  }
  // The policy's fixed retrieval input first (a workflow `op`; `<name>` takes the receipt's selector), then every required field.
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(policy.retrievalInput ?? {})) {
    const m = typeof v === 'string' ? /^<(.+)>$/.exec(v) : null;
    if (!m) input[k] = v;
    else if (receipt[m[1]!] !== undefined) input[k] = receipt[m[1]!];
  }
  for (const name of required) {
    if (input[name] !== undefined) continue;
    if (receipt[name] === undefined) return receipt;
    input[name] = receipt[name];
  }
  receipt.retrieval = { action: policy.retrieval, input };
  return receipt;
}

/** Splits a retrieval name: `task get` is an Exec action, a single word (`message_history_read`) an MCP tool. */
export function parseRetrieval(
  retrieval: string,
): { domain: string; action: string } | { tool: string } {
  const parts = retrieval.split(' ');
  return parts.length === 2 ? { domain: parts[0]!, action: parts[1]! } : { tool: retrieval };
}
