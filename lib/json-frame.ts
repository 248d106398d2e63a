/**
 * Decoding of one line-delimited JSON-RPC frame: UTF-8 only, exactly one JSON
 * value, no repeated object keys, nesting bounded (the root container counts
 * as depth 1). Pure; returns a problem instead of throwing so callers map it
 * onto their own error codes. A bracket/string pre-scan checks what
 * JSON.parse silently allows (duplicate keys) and bounds depth before the
 * real parse runs.
 */

type FrameProblem = {
  readonly kind: 'utf8' | 'syntax' | 'duplicate_key' | 'depth';
  readonly message: string;
};
type FrameResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: FrameProblem };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeFrame(bytes: Uint8Array, maxDepth: number): FrameResult {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, problem: { kind: 'utf8', message: 'the frame is not valid UTF-8' } };
  }
  const problem = scanJson(text, maxDepth);
  if (problem) return { ok: false, problem };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return {
      ok: false,
      problem: {
        kind: 'syntax',
        message: `the frame is not one JSON value (${(err as Error).message.slice(0, 120)})`,
      },
    };
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
 * The structure check shared by every strict JSON reader (request bodies in
 * daemon/http/strict-json.ts, stdio frames here): walks brackets and strings
 * only, for what JSON.parse silently allows (repeated keys) and for depth.
 * It never needs to be a full parser: any text it lets through still has to
 * pass JSON.parse. `noun` names the text in messages ("body", "frame").
 */
export function scanJson(text: string, maxDepth: number, noun = 'frame'): FrameProblem | null {
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
      if (top?.expectKey) {
        let key: string;
        if (!escaped)
          key = text.slice(i + 1, j); // no escapes: the raw text is the key (JSON.parse still checks it later)
        else {
          try {
            key = JSON.parse(text.slice(i, j + 1)) as string;
          } catch {
            return { kind: 'syntax', message: `the ${noun} has a malformed object key` };
          }
        }
        if (!addKey(top, key))
          return {
            kind: 'duplicate_key',
            message: `the ${noun} repeats the object key ${JSON.stringify(key.slice(0, 64))}`,
          };
        top.expectKey = false;
      }
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth)
        return { kind: 'depth', message: `the ${noun} nests deeper than ${maxDepth} levels` };
      stack.push(c === 0x7b ? { keys: [], expectKey: true } : null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = true;
    }
  }
  return null;
}
