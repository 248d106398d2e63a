/**
 * Decoding of one line-delimited JSON-RPC frame: UTF-8 only, exactly one JSON
 * value, no repeated object keys, nesting bounded (the root container counts
 * as depth 1). Pure; returns a problem instead of throwing so callers map it
 * onto their own error codes. A bracket/string pre-scan checks what
 * JSON.parse silently allows (duplicate keys) and bounds depth before the
 * real parse runs.
 */

export type FrameProblem = { readonly kind: 'utf8' | 'syntax' | 'duplicate_key' | 'depth'; readonly message: string };
export type FrameResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: FrameProblem };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeFrame(bytes: Uint8Array, maxDepth: number): FrameResult {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, problem: { kind: 'utf8', message: 'the frame is not valid UTF-8' } };
  }
  const problem = scan(text, maxDepth);
  if (problem) return { ok: false, problem };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, problem: { kind: 'syntax', message: `the frame is not one JSON value (${(err as Error).message.slice(0, 120)})` } };
  }
}

/** Deepest container nesting of an already parsed value (root container = 1, a scalar = 0). */
export function jsonDepth(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let deepest = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v)) deepest = Math.max(deepest, jsonDepth(x));
  return deepest + 1;
}

function scan(text: string, maxDepth: number): FrameProblem | null {
  const stack: ({ keys: Set<string>; expectKey: boolean } | null)[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      let escaped = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) {
          escaped = true;
          j += 2;
        } else if (d === 0x22) break;
        else j++;
      }
      const top = stack[stack.length - 1];
      if (top && top.expectKey) {
        let key = text.slice(i + 1, j);
        if (escaped) {
          try {
            key = JSON.parse(text.slice(i, j + 1)) as string;
          } catch {
            return { kind: 'syntax', message: 'the frame has a malformed object key' };
          }
        }
        if (top.keys.has(key)) return { kind: 'duplicate_key', message: `the frame repeats the object key ${JSON.stringify(key.slice(0, 64))}` };
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (stack.length >= maxDepth) return { kind: 'depth', message: `the frame nests deeper than ${maxDepth} levels` };
      stack.push(c === 0x7b ? { keys: new Set(), expectKey: true } : null);
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = true;
    }
  }
  return null;
}
