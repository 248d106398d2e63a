import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `<prefix>_<20 base62 chars>`: matches catalog ID_PATTERN, ~119 bits of randomness. */
export function newId(prefix: string): string {
  const bytes = randomBytes(32);
  let out = '';
  // 248 = 4 * 62: rejecting bytes above it keeps the distribution uniform.
  for (let i = 0; out.length < 20; i++) {
    if (i >= bytes.length) return newId(prefix);
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62];
  }
  return `${prefix}_${out}`;
}

// Date#toISOString costs ~0.9 µs and every row carries two timestamps; rows
// that are read again (and created_at == updated_at of a fresh row) hit this
// small direct-mapped cache instead. Bounded: 256 entries, replaced on collision.
const ISO_SLOTS = 256;
const isoKeys = new Float64Array(ISO_SLOTS).fill(NaN);
const isoText: string[] = new Array<string>(ISO_SLOTS).fill('');

export function isoTime(ms: number): string {
  const slot = ms & (ISO_SLOTS - 1);
  if (isoKeys[slot] === ms) return isoText[slot]!;
  const text = new Date(ms).toISOString();
  isoKeys[slot] = ms;
  isoText[slot] = text;
  return text;
}
