import type { ErrorBody, ErrorDetail } from './envelope.js';

/**
 * Size limits of the error envelope, shared by the daemon (Exec and MCP) and
 * the CLI (local errors and the re-projection of the daemon's). An error is
 * about what went wrong, never a copy of the input: a body with 100 000 bad
 * fields gets the first few named and a count of the rest, within 8 KiB.
 * All sizes are of the serialized JSON in UTF-8 bytes, escapes included.
 */
export const ERROR_ENVELOPE_MAX_BYTES = 8 * 1024;
/** At most this many entries of `details[]`; the rest are counted in `detailsOmitted`. */
export const MAX_DETAILS = 20;
/** Each `details[].path` and `details[].message`, serialized. */
export const DETAIL_TEXT_MAX_BYTES = 256;
/** `message` and `hint`, serialized. */
export const ERROR_TEXT_MAX_BYTES = 1024;
/** `next` and `metadata`, each as a whole; a larger one is left out rather than cut. */
const ERROR_PART_MAX_BYTES = 2048;

const ELLIPSIS = '\u2026';
const ELLIPSIS_COST = 3;

/** Bytes one UTF-16 unit (or surrogate pair) costs inside a JSON string literal. */
function unitCost(s: string, i: number): [cost: number, width: number] {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c) return [2, 1];
  if (c < 0x20) return [c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6, 1];
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? [4, 2] : [6, 1]; // a lone surrogate is written as \uXXXX
  }
  if (c >= 0xdc00 && c <= 0xdfff) return [6, 1];
  return [3, 1];
}

/**
 * `s` unchanged when its serialized form (quotes excluded) fits `maxBytes`;
 * otherwise its longest prefix that fits with a trailing ellipsis, never
 * splitting a surrogate pair.
 */
export function cutJsonText(s: string, maxBytes: number): string {
  // Cheap exit: even at the worst 6 bytes a unit it fits.
  if (s.length * 6 <= maxBytes) return s;
  let used = 0;
  let cutAt = -1;
  for (let i = 0; i < s.length; ) {
    const [cost, width] = unitCost(s, i);
    if (cutAt < 0 && used + cost > maxBytes - ELLIPSIS_COST) cutAt = i;
    used += cost;
    if (used > maxBytes) return `${s.slice(0, cutAt)}${ELLIPSIS}`;
    i += width;
  }
  return s;
}

function serializedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * The one bound every error envelope passes before it is written, wherever
 * it was made: text fields cut to their limits, `next`/`metadata` dropped if
 * oversized, at most MAX_DETAILS details and only as many as keep the whole
 * `{"ok":false,"error":...}` within ERROR_ENVELOPE_MAX_BYTES. Details left out
 * are counted in `detailsOmitted` (added to any count already there).
 */
export function boundErrorBody(body: ErrorBody): ErrorBody {
  const out: ErrorBody = {
    code: body.code,
    message: cutJsonText(String(body.message), ERROR_TEXT_MAX_BYTES),
  };
  if (typeof body.hint === 'string') out.hint = cutJsonText(body.hint, ERROR_TEXT_MAX_BYTES);
  if (body.next !== undefined && fitsPart(body.next)) out.next = body.next;
  if (body.metadata !== undefined && fitsPart(body.metadata)) out.metadata = body.metadata;
  const given = Array.isArray(body.details) ? body.details : [];
  let omitted =
    typeof body.detailsOmitted === 'number' &&
    Number.isSafeInteger(body.detailsOmitted) &&
    body.detailsOmitted > 0
      ? body.detailsOmitted
      : 0;
  if (given.length === 0) {
    if (omitted > 0) out.detailsOmitted = omitted;
    return out;
  }
  // Room for the envelope around the error and a `"detailsOmitted":<n>` member.
  let used =
    serializedBytes({ ok: false, error: out }) +
    ',"details":[]'.length +
    ',"detailsOmitted":9007199254740991'.length;
  const kept: ErrorDetail[] = [];
  for (const d of given) {
    if (kept.length >= MAX_DETAILS) break;
    const detail = {
      path: cutJsonText(String(d?.path ?? ''), DETAIL_TEXT_MAX_BYTES),
      message: cutJsonText(String(d?.message ?? ''), DETAIL_TEXT_MAX_BYTES),
    };
    const cost = serializedBytes(detail) + 1;
    if (used + cost > ERROR_ENVELOPE_MAX_BYTES) break;
    used += cost;
    kept.push(detail);
  }
  omitted += given.length - kept.length;
  if (kept.length > 0) out.details = kept;
  if (omitted > 0) out.detailsOmitted = omitted;
  return out;
}

function fitsPart(value: unknown): boolean {
  try {
    return serializedBytes(value) <= ERROR_PART_MAX_BYTES;
  } catch {
    return false;
  }
}

/**
 * The bounded body, shrunk further until `size` (the bytes of whatever
 * carries it, e.g. an MCP tool result holding the envelope as escaped text)
 * is at most `max`: details go first (counted), then the texts are cut to
 * 256 bytes, then `next` goes. With the limits above that always fits 8 KiB:
 * what remains is at most ~1 KiB of text and 2 KiB of metadata, each at most
 * doubled by one more level of escaping.
 */
export function fitErrorBody(
  body: ErrorBody,
  size: (b: ErrorBody) => number,
  max = ERROR_ENVELOPE_MAX_BYTES,
): ErrorBody {
  const out = boundErrorBody(body);
  while (size(out) > max && out.details && out.details.length > 0) {
    out.details = out.details.slice(0, -1);
    out.detailsOmitted = (out.detailsOmitted ?? 0) + 1;
    if (out.details.length === 0) delete out.details;
  }
  if (size(out) <= max) return out;
  out.message = cutJsonText(out.message, DETAIL_TEXT_MAX_BYTES);
  if (out.hint !== undefined) out.hint = cutJsonText(out.hint, DETAIL_TEXT_MAX_BYTES);
  if (size(out) > max) delete out.next;
  return out;
}
