import { scanJson } from '../../lib/json-frame.js';
import { isCredentialName } from './credential-names.js';
import { setOwn } from './mask.js';

/** What a value under a credential-like key becomes. */
const REDACTED = '[REDACTED]';

/** How deep a JSON text block may nest for its credential fields to be found (deeper ones are refused, not passed). */
const JSON_TEXT_DEPTH = 256;

/** Thrown when a JSON text block holds a credential-like key but cannot be redacted without losing something. */
export class RedactError extends Error {
  override name = 'RedactError';
}

/**
 * Structured data from outside the daemon (a client tool's structured
 * result, the fields of its content blocks): every string and number under
 * a credential-like key (credential-names.ts), at any depth below it, is
 * replaced by `[REDACTED]`, whether or not it is a configured secret. Keys,
 * nulls and booleans stay (they hold no secret value), so the shape is
 * kept. Returns `v` itself when nothing was redacted.
 */
export function redactCredentialFields(v: unknown): unknown {
  return walk(v, false);
}

function walk(v: unknown, under: boolean): unknown {
  if (typeof v === 'string' || typeof v === 'number') return under && v !== REDACTED ? REDACTED : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x, i) => {
      const y = walk(x, under);
      if (y !== x) {
        out ??= v.slice();
        out[i] = y;
      }
    });
    return out ?? v;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const y = walk(x, under || isCredentialName(k));
    if (y !== x) changed = true;
    setOwn(out, k, y);
  }
  return changed ? out : v;
}

/** Object keys as written in JSON text (escapes included), to find out cheaply whether a text needs parsing at all. */
const JSON_KEY = /"((?:[^"\\]|\\.)*)"\s*:/g;

function mentionsCredentialKey(text: string): boolean {
  for (const m of text.matchAll(JSON_KEY)) {
    let key: string;
    try {
      key = JSON.parse(`"${m[1]}"`) as string;
    } catch {
      continue;
    }
    if (isCredentialName(key)) return true;
  }
  return false;
}

/**
 * A text block whose text is a JSON object or array gets the same
 * redaction. Text that is not JSON, or JSON with no credential-like key,
 * is returned as it is, byte for byte. Redacted JSON is written again with
 * the text's own indentation (compact when it had no line breaks). A JSON
 * text that names a credential-like key but repeats a key or nests deeper
 * than 256 cannot be redacted without dropping or missing something: it is
 * refused (RedactError), never passed on as it was.
 */
export function redactJsonText(text: string): string {
  if (!/^\s*[[{]/.test(text) || !mentionsCredentialKey(text)) return text;
  const problem = scanJson(text, JSON_TEXT_DEPTH, 'text');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // Not JSON at all: prose that happens to mention a key is text, masked by value only.
    if (err instanceof SyntaxError) return text;
    throw new RedactError('it is JSON with a credential-like key, but it could not be read');
  }
  if (problem)
    throw new RedactError(`it is JSON with a credential-like key, but ${problem.message}`);
  const redacted = redactCredentialFields(doc);
  if (redacted === doc) return text;
  const indent = text.includes('\n') ? (/\n([ \t]+)\S/.exec(text)?.[1] ?? 2) : undefined;
  return JSON.stringify(redacted, null, indent);
}
