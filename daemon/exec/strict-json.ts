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
  keys: Set<string>;
  expectKey: boolean;
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
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c /* \ */) j += 2;
        else if (d === 0x22) break;
        else j++;
      }
      const top = stack[stack.length - 1];
      if (top && top.expectKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          throw bad('the body has a malformed object key');
        }
        if (top.keys.has(key)) throw bad(`the body repeats the object key ${JSON.stringify(key.slice(0, 64))}`);
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= MAX_JSON_DEPTH) throw bad(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
      stack.push(c === 0x7b ? { keys: new Set(), expectKey: true } : null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = true;
    }
  }
}
