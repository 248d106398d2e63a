import { ExecError } from '../errors.js';

/** Deeper nesting than any action input needs; bounds the parser's recursion. */
export const MAX_JSON_DEPTH = 64;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function bad(message: string): ExecError {
  return new ExecError('invalid_json', message, { hint: 'Send exactly one JSON value, UTF-8 encoded.' });
}

/**
 * Decodes a request body as exactly one JSON value: UTF-8 only (invalid
 * sequences and a byte-order mark are rejected), no trailing bytes, no
 * duplicate object keys, nesting at most MAX_JSON_DEPTH. JSON.parse checks
 * the grammar; a pre-scan checks what JSON.parse silently allows.
 */
export function decodeStrictJson(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw bad('the body is empty');
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw bad('the body is not valid UTF-8');
  }
  scanStructure(text);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw bad(`the body is not one well-formed JSON value (${(err as Error).message.slice(0, 120)})`);
  }
}

interface ObjectFrame {
  /** Keys seen so far: a short array (objects are small), a Set once it grows. */
  keys: string[] | Set<string>;
  expectKey: boolean;
}

const SMALL_OBJECT = 16;

/** Records `key` in the frame; false when the object already has it. */
function addKey(frame: ObjectFrame, key: string): boolean {
  const keys = frame.keys;
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return false;
    keys.push(key);
    if (keys.length > SMALL_OBJECT) frame.keys = new Set(keys);
    return true;
  }
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}

/**
 * Walks brackets and strings only. It never needs to be a full parser: any
 * text it lets through still has to pass JSON.parse.
 */
function scanStructure(text: string): void {
  const stack: (ObjectFrame | null)[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      let escaped = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c /* \ */) {
          escaped = true;
          j += 2;
        } else if (d === 0x22) break;
        else j++;
      }
      const top = stack[stack.length - 1];
      if (top && top.expectKey) {
        let key: string;
        if (!escaped) key = text.slice(i + 1, j); // no escapes: the raw text is the key (JSON.parse still checks it later)
        else {
          try {
            key = JSON.parse(text.slice(i, j + 1)) as string;
          } catch {
            throw bad('the body has a malformed object key');
          }
        }
        if (!addKey(top, key)) throw bad(`the body repeats the object key ${JSON.stringify(key.slice(0, 64))}`);
        top.expectKey = false;
      }
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= MAX_JSON_DEPTH) throw bad(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
      stack.push(c === 0x7b ? { keys: [], expectKey: true } : null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = true;
    }
  }
}
