import { jsonBytes } from '../catalog/limits.js';

/**
 * The most expensive string a (chars, bytes) limit allows: as many copies of
 * `unit` as fit (U+0001 costs 6 bytes as JSON, an emoji 4 in UTF-8), then
 * `suffix` (to keep values distinct), then padding that uses up every byte
 * left. Its JSON form is exactly `bytes` long whenever the characters allow.
 */
export function expensive(
  limit: { chars: number; bytes: number },
  unit = '\u0001',
  suffix = '',
): string {
  const unitBytes = jsonBytes(unit);
  const fixed = jsonBytes(suffix);
  const count = Math.min(
    limit.chars - [...suffix].length,
    Math.floor((limit.bytes - fixed) / unitBytes),
  );
  let s = unit.repeat(Math.max(0, count)) + suffix;
  let chars = [...s].length;
  let bytes = jsonBytes(s);
  // '"' costs 2 bytes, 'a' 1.
  while (chars < limit.chars && bytes + 2 <= limit.bytes) {
    s = `"${s}`;
    chars++;
    bytes += 2;
  }
  while (chars < limit.chars && bytes + 1 <= limit.bytes) {
    s = `a${s}`;
    chars++;
    bytes++;
  }
  return s;
}

export const FLAVORS = { control: '\u0001', emoji: '\u{1F600}', separator: '\u2028' } as const;
