import { cutOutsideLabel, type Masked } from '../masking/masked.js';
import type { SpillStore } from './spill.js';

export interface BoundedText {
  readonly text: Masked;
  /** Present when the middle was dropped: where the whole output is. */
  readonly spill?: { readonly path: string; readonly bytes: number };
}

/** The character index of the longest prefix of `text` that is at most `n` UTF-8 bytes (never inside a character). */
function prefixChars(text: string, n: number): number {
  const buf = Buffer.from(text, 'utf8');
  let end = Math.min(n, buf.length);
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8').length;
}

/** The longest prefix of masked text of at most `n` UTF-8 bytes that ends on a character boundary and outside any `[NAME]`. */
function headOf(text: Masked, n: number): Masked {
  return text.slice(0, cutOutsideLabel(text, prefixChars(text, n), 'start')) as Masked;
}

/** The longest suffix of masked text of at most `n` UTF-8 bytes that starts on a character boundary and outside any `[NAME]`. */
export function tailOf(text: Masked, n: number): Masked {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= n) return text;
  const buf = Buffer.from(text, 'utf8');
  let start = bytes - n;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  const at = buf.subarray(0, start).toString('utf8').length;
  return text.slice(cutOutsideLabel(text, at, 'end')) as Masked;
}

/**
 * Masked text within `limitBytes` (UTF-8) is returned as is. Longer text
 * keeps its head and its tail, drops the middle, and says so in a note naming
 * the spill file that holds all of it; head + note + tail fit in `limitBytes`.
 * Which end matters depends on the tool (a file read wants the head, a
 * failed build the tail), so both are kept, half the room each. The input is
 * masked already (the gate calls this): a cut can never split a secret.
 */
export function boundText(text: Masked, limitBytes: number, spill: SpillStore): BoundedText {
  if (text.length <= limitBytes / 3 || Buffer.byteLength(text, 'utf8') <= limitBytes)
    return { text };
  const total = Buffer.byteLength(text, 'utf8');
  const file = spill.write(text);
  const noteFor = (dropped: number) =>
    `\n[... ${dropped} of ${total} bytes dropped from the middle; the whole output is in ${file.path} ...]\n`;
  // The note's length depends on the dropped count; size it with the widest count first.
  const room = Math.max(0, limitBytes - Buffer.byteLength(noteFor(total), 'utf8'));
  const head = headOf(text, Math.floor(room / 2));
  const tail = tailOf(text, room - Buffer.byteLength(head, 'utf8'));
  const dropped = total - Buffer.byteLength(head, 'utf8') - Buffer.byteLength(tail, 'utf8');
  return {
    text: (head + noteFor(dropped) + tail) as Masked,
    spill: { path: file.path, bytes: file.bytes },
  };
}
