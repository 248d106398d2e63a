import { readFileSync } from 'node:fs';
import type { ErrorBody, ErrorDetail } from '../../catalog/envelope.js';
import { ERROR_TABLE, isErrorCode, type ErrorCode } from '../../catalog/errors.js';
import { boundErrorBody } from '../../catalog/error-limits.js';
import type { ReceiptPolicy } from '../../catalog/inventory.js';
// The daemon keeps results within this; the CLI holds the same line before printing.
import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import { buildReceipt, parseRetrieval } from '../../catalog/receipt.js';
import { NAME_PATTERN, RECEIPT_POLICIES_FILE } from '../../lib/generated.js';
import { loadInputValidator } from '../../lib/input-validators.js';

/** What the CLI prints for one daemon answer, and the exit status that goes with it. */
interface Printed {
  readonly text: string;
  readonly status: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Re-projects what the daemon answered onto the closed envelope before it is
 * printed: a success keeps `ok` and `data`; an error keeps only the fields of
 * the error schema, a known code, text within its limits, a `next` whose
 * input passes the named action's own validator, and a mutation receipt
 * rebuilt here from the catalog's receipt policy for the action that was
 * called (never from paths on the wire). Anything else is dropped.
 * Returns undefined when the text is not an envelope at all.
 */
export async function reproject(
  domain: string,
  action: string,
  input: unknown,
  body: string,
): Promise<Printed | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObj(value)) return undefined;
  if (value.ok === true) {
    if (!Object.hasOwn(value, 'data')) return undefined;
    // The usual case: exactly {ok, data} on one line, printed as sent (raw C0 is only whitespace
    // between tokens there, which printData would escape into invalid JSON: written anew instead).
    const keys = Object.keys(value);
    const text =
      keys.length === 2 && !/[\u0000-\u001f]/.test(body)
        ? body
        : JSON.stringify({ ok: true, data: value.data });
    if (Buffer.byteLength(text, 'utf8') <= RESULT_BUDGET_BYTES) return { text, status: 0 };
    const error = await overBudget(domain, action, input, value.data);
    return { text: JSON.stringify({ ok: false, error }), status: ERROR_TABLE[error.code].exit };
  }
  if (value.ok !== false || !isObj(value.error)) return undefined;
  const error = await reprojectError(domain, action, input, value.error);
  return { text: JSON.stringify({ ok: false, error }), status: ERROR_TABLE[error.code].exit };
}

/**
 * A success envelope over the budget (only a faulty daemon sends one): never
 * printed, never cut. A mutation says it was applied, with a receipt built
 * from the data by the same policy the daemon uses; a read says to narrow it.
 */
async function overBudget(
  domain: string,
  action: string,
  input: unknown,
  data: unknown,
): Promise<ErrorBody> {
  const policy = policies()[`${domain}.${action}`];
  if (!policy) {
    return boundErrorBody({
      code: 'result_budget_exceeded',
      message: `the result of ${domain} ${action} is larger than the 64 KiB budget`,
      hint: `Narrow the request (a smaller limit, a filter); see agentteam exec ${domain} ${action} --help.`,
    });
  }
  const entity = isObj(data) && isObj(data[policy.entity]) ? (data[policy.entity] as Obj) : {};
  const receipt = buildReceipt(policy, entity, isObj(input) ? input : {}, policy.retrievalRequired);
  if (receipt.retrieval !== undefined && !(await validCall(receipt.retrieval)))
    delete receipt.retrieval;
  return boundErrorBody({
    code: 'result_budget_exceeded',
    message: `${domain} ${action} was applied, but its result is larger than the 64 KiB budget`,
    metadata: {
      mutation_applied: true,
      mutation_receipt: receipt as NonNullable<ErrorBody['metadata']>['mutation_receipt'],
    },
  });
}

let loaded: Policies | undefined;
function policies(): Policies {
  loaded ??= JSON.parse(readFileSync(RECEIPT_POLICIES_FILE, 'utf8')) as Policies;
  return loaded;
}

async function reprojectError(
  domain: string,
  action: string,
  input: unknown,
  e: Obj,
): Promise<ErrorBody> {
  const known = isErrorCode(e.code);
  const code: ErrorCode = known ? (e.code as ErrorCode) : 'upstream_error';
  const out: ErrorBody = {
    code,
    message: known
      ? typeof e.message === 'string'
        ? e.message
        : ''
      : 'the daemon answered with an error code outside the closed set',
  };
  if (known && typeof e.hint === 'string') out.hint = e.hint;
  const next = await validCall(e.next);
  if (next) out.next = next;
  if (Array.isArray(e.details)) {
    const details: ErrorDetail[] = e.details
      .filter(
        (d): d is ErrorDetail =>
          isObj(d) && typeof d.path === 'string' && typeof d.message === 'string',
      )
      .map((d) => ({ path: d.path, message: d.message }));
    if (details.length > 0) out.details = details;
  }
  if (typeof e.detailsOmitted === 'number') out.detailsOmitted = e.detailsOmitted;
  const metadata =
    code === 'result_budget_exceeded'
      ? await receiptMetadata(domain, action, input, e.metadata)
      : undefined;
  if (metadata) out.metadata = metadata;
  return boundErrorBody(out);
}

/** `{action: "<domain> <action>", input}` when that action exists here and the input passes its validator. */
async function validCall(v: unknown): Promise<{ action: string; input: Obj } | undefined> {
  if (!isObj(v) || typeof v.action !== 'string' || !isObj(v.input)) return undefined;
  const target = parseRetrieval(v.action);
  if ('tool' in target || !NAME_PATTERN.test(target.domain) || !NAME_PATTERN.test(target.action))
    return undefined;
  const check = await loadInputValidator(target.domain, target.action);
  if (!check?.(v.input).ok) return undefined;
  return { action: `${target.domain} ${target.action}`, input: v.input };
}

type Policies = Record<string, ReceiptPolicy & { retrievalRequired: readonly string[] }>;

/**
 * The receipt of a mutation the daemon reports as applied, rebuilt from the
 * called action's receipt policy: selector values are taken from the wire
 * only where the policy names them and they are well formed, idempotency
 * selectors from the input this CLI sent, and the retrieval call from the
 * policy and the retrieval action's required inputs, kept only when it passes
 * that action's validator. A read cannot have applied anything: no metadata.
 */
async function receiptMetadata(
  domain: string,
  action: string,
  input: unknown,
  m: unknown,
): Promise<ErrorBody['metadata'] | undefined> {
  if (!isObj(m) || m.mutation_applied !== true) return undefined;
  const policy = policies()[`${domain}.${action}`];
  if (!policy) return undefined;
  const wire = isObj(m.mutation_receipt) ? m.mutation_receipt : {};
  const receipt = buildReceipt(policy, wire, isObj(input) ? input : {}, policy.retrievalRequired);
  if (receipt.retrieval !== undefined && !(await validCall(receipt.retrieval)))
    delete receipt.retrieval;
  return {
    mutation_applied: true,
    mutation_receipt: receipt as NonNullable<ErrorBody['metadata']>['mutation_receipt'],
  };
}
