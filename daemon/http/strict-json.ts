import { ExecError } from '../errors/exec-error.js';
import { scanJson } from '../../lib/json-frame.js';

/** Deeper nesting than any action input needs; bounds the parser's recursion. */
export const MAX_JSON_DEPTH = 64;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function bad(message: string): ExecError {
  return new ExecError('invalid_json', message, {
    hint: 'Send exactly one JSON value, UTF-8 encoded.',
  });
}

/**
 * Decodes a request body as exactly one JSON value: UTF-8 only (invalid
 * sequences and a byte-order mark are rejected), no trailing bytes, no
 * duplicate object keys, nesting at most MAX_JSON_DEPTH. JSON.parse checks
 * the grammar; the shared pre-scan (lib/json-frame.ts) checks what
 * JSON.parse silently allows.
 */
export function decodeStrictJson(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw bad('the body is empty');
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw bad('the body is not valid UTF-8');
  }
  const problem = scanJson(text, MAX_JSON_DEPTH, 'body');
  if (problem) throw bad(problem.message);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw bad(
      `the body is not one well-formed JSON value (${(err as Error).message.slice(0, 120)})`,
    );
  }
}
