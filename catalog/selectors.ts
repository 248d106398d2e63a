import type { ErrorDetail } from './envelope.js';

/**
 * Idempotency selectors: `idempotencyKey` and `requestId` in a mutation's
 * input, forwarded by the CLI as the `Idempotency-Key` and `X-Request-ID`
 * headers. Both name the same record: a mutation carries at most one value,
 * given by either or both fields (and headers) alike.
 */

/** 1..128 characters from a small ASCII set, so characters and bytes agree and a header carries it unchanged. */
export const SELECTOR_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';
export const SELECTOR_MAX_BYTES = 128;
const SELECTOR = new RegExp(SELECTOR_PATTERN);

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REQUEST_ID_HEADER = 'X-Request-ID';

export function isSelector(v: unknown): v is string {
  return typeof v === 'string' && v.length <= SELECTOR_MAX_BYTES && SELECTOR.test(v);
}

type BodySelector =
  | { readonly ok: true; readonly value?: string }
  | { readonly ok: false; readonly detail: ErrorDetail };

/**
 * The one selector a (schema-valid) input carries, if any. Both fields with
 * different values are a conflict, reported at `/requestId`.
 */
export function bodySelector(input: unknown): BodySelector {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return { ok: true };
  const { idempotencyKey, requestId } = input as { idempotencyKey?: unknown; requestId?: unknown };
  if (idempotencyKey !== undefined && requestId !== undefined && idempotencyKey !== requestId) {
    return {
      ok: false,
      detail: {
        path: '/requestId',
        message: 'differs from idempotencyKey; give one selector, or the same value in both',
      },
    };
  }
  const value = idempotencyKey ?? requestId;
  return typeof value === 'string' ? { ok: true, value } : { ok: true };
}
