import type { SpillStore } from './spill.js';

export interface BoundedText {
  readonly text: string;
  /** Present when the middle was dropped: where the whole output is. */
  readonly spill?: { readonly path: string; readonly bytes: number };
}

/** The longest prefix of `buf` that ends on a UTF-8 character boundary and is at most `n` bytes. */
function headBytes(buf: Buffer, n: number): string {
  let end = Math.min(n, buf.length);
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** The longest suffix of `buf` that starts on a UTF-8 character boundary and is at most `n` bytes. */
function tailBytes(buf: Buffer, n: number): string {
  let start = Math.max(0, buf.length - n);
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString('utf8');
}

/**
 * Text within `limitBytes` (UTF-8) is returned as is. Longer text keeps its
 * head and its tail, drops the middle, and says so in a note naming the spill
 * file that holds all of it; head + note + tail fit in `limitBytes`.
 * Which end matters depends on the tool (a file read wants the head, a
 * failed build the tail), so both are kept, half the room each.
 */
export function boundText(text: string, limitBytes: number, spill: SpillStore): BoundedText {
  if (text.length <= limitBytes / 3 || Buffer.byteLength(text, 'utf8') <= limitBytes) return { text };
  const buf = Buffer.from(text, 'utf8');
  const file = spill.write(text);
  const noteFor = (dropped: number) =>
    `\n[... ${dropped} of ${buf.length} bytes dropped from the middle; the whole output is in ${file.path} ...]\n`;
  // The note's length depends on the dropped count; size it with the widest count first.
  const room = Math.max(0, limitBytes - Buffer.byteLength(noteFor(buf.length), 'utf8'));
  const head = headBytes(buf, Math.floor(room / 2));
  const tail = tailBytes(buf, room - Buffer.byteLength(head, 'utf8'));
  const dropped = buf.length - Buffer.byteLength(head, 'utf8') - Buffer.byteLength(tail, 'utf8');
  return { text: head + noteFor(dropped) + tail, spill: { path: file.path, bytes: file.bytes } };
}
