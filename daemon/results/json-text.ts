import { cutOutsideLabel, type Masked } from '../masking/masked.js';
import type { SpillStore } from './spill.js';
import type { BoundedText } from './text.js';

/**
 * Text bounded by what it costs inside a JSON string, escapes included,
 * rather than by its UTF-8 bytes: a text block of an MCP result is measured
 * as the frame carries it, where a quote takes 2 bytes and a control
 * character 6. Same rules as text.ts otherwise: head and tail, half the room
 * each, cut on character boundaries and outside any `[NAME]`, a note naming
 * the spill file that holds the whole.
 */

/** Bytes one code unit (or a surrogate pair, 2 units) takes inside a JSON string as JSON.stringify writes it. */
function unitCost(c: number): number {
  if (
    c === 0x22 ||
    c === 0x5c ||
    c === 0x08 ||
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0c ||
    c === 0x0d
  )
    return 2;
  if (c < 0x20) return 6;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdfff) return 6; // a lone surrogate is written \uXXXX
  return 3;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** JSON-string bytes of `s` (without the quotes). */
export function jsonTextBytes(s: string): number {
  return Buffer.byteLength(JSON.stringify(s), 'utf8') - 2;
}

/** The character index where the longest prefix costing at most `n` ends. */
function prefixEnd(text: string, n: number): number {
  let cost = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1));
    const w = pair ? 4 : unitCost(c);
    if (cost + w > n) break;
    cost += w;
    i += pair ? 2 : 1;
  }
  return i;
}

/** The character index where the longest suffix costing at most `n` starts. */
function suffixStart(text: string, n: number): number {
  let cost = 0;
  let i = text.length;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    const pair = isLow(c) && i >= 2 && isHigh(text.charCodeAt(i - 2));
    const w = pair ? 4 : unitCost(c);
    if (cost + w > n) break;
    cost += w;
    i -= pair ? 2 : 1;
  }
  return i;
}

const noteFor = (dropped: number, total: number, path: string) =>
  `\n[... ${dropped} of ${total} bytes dropped from the middle; the whole output is in ${path} ...]\n`;

/**
 * The least limit at which boundJsonText can cut `text`: its note with the
 * widest count and a spill path of the longest length a file name takes.
 */
export function leastCut(text: string, spill: SpillStore): number {
  const total = Buffer.byteLength(text, 'utf8');
  return jsonTextBytes(noteFor(total, total, `${spill.dir}/${'x'.repeat(48)}`));
}

/**
 * Masked text whose JSON string costs at most `limit` bytes is returned as
 * it is. Longer text is spilled whole and becomes head + note + tail within
 * `limit`, which must be at least leastCut(text).
 */
export function boundJsonText(text: Masked, limit: number, spill: SpillStore): BoundedText {
  if (jsonTextBytes(text) <= limit) return { text };
  if (limit < leastCut(text, spill))
    throw new Error(`boundJsonText: ${limit} bytes cannot hold the note`);
  const total = Buffer.byteLength(text, 'utf8');
  const file = spill.write(text);
  const room = Math.max(0, limit - jsonTextBytes(noteFor(total, total, file.path)));
  const headEnd = cutOutsideLabel(text, prefixEnd(text, Math.floor(room / 2)), 'start');
  const head = text.slice(0, headEnd);
  const tailAt = Math.max(
    headEnd,
    cutOutsideLabel(text, suffixStart(text, room - jsonTextBytes(head)), 'end'),
  );
  const tail = text.slice(tailAt);
  const dropped = total - Buffer.byteLength(head, 'utf8') - Buffer.byteLength(tail, 'utf8');
  return {
    text: (head + noteFor(dropped, total, file.path) + tail) as Masked,
    spill: { path: file.path, bytes: file.bytes },
  };
}
