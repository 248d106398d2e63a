/**
 * PostgreSQL's `text` cannot hold U+0000, which the store keeps byte for byte
 * (SQLite does). Every string bound to or read from PostgreSQL passes through
 * this reversible escape: U+0000 is stored as U+0001 U+0001 and U+0001 as
 * U+0001 U+0002. Equality is preserved (the map is injective), so lookups and
 * filters on escaped columns still work; ordering between strings that differ
 * only in these two characters is not, and no store orders by such a column
 * (ids and keys cannot contain control characters). Strings without either
 * character, nearly all of them, are returned as they are after one scan.
 */
const NUL = '\u0000';
const ESC = '\u0001';

export function encodeText(s: string): string {
  if (s.indexOf(NUL) < 0 && s.indexOf(ESC) < 0) return s;
  let out = '';
  for (const ch of s) out += ch === NUL ? ESC + ESC : ch === ESC ? `${ESC}\u0002` : ch;
  return out;
}

export function decodeText(s: string): string {
  if (s.indexOf(ESC) < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch !== ESC) {
      out += ch;
      continue;
    }
    const next = s[++i];
    if (next === ESC) out += NUL;
    else if (next === '\u0002') out += ESC;
    else
      throw new Error(
        'stored text has a broken escape (written by something other than agentteam?)',
      );
  }
  return out;
}
