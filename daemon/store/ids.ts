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

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
