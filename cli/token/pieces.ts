/**
 * Token counting in bounded pieces. A BPE tokenizer merges within one
 * pre-token (a word, a run of punctuation or of white space), and its merge
 * loop is quadratic in that pre-token's length: gpt-tokenizer took 66 s for
 * one 128 KiB word. The text is therefore counted in pieces of at most
 * PIECE_CHARS UTF-16 units, each cut just before the white space that starts
 * a word (a pre-token boundary, so ordinary text counts exactly as a whole),
 * and only a run with no such boundary (one very long word, a long run of
 * spaces or punctuation) is cut where the piece is full, which may cost one
 * token more per cut than the whole would have.
 */
export const PIECE_CHARS = 1024;

// Exactly the characters of JavaScript's \s, which the tokenizer's pre-token pattern uses.
const isSpace = (c: number) =>
  c === 0x20 ||
  (c >= 0x09 && c <= 0x0d) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** Where the piece starting at `start` ends: linear work per piece, so linear overall. */
function cutAfter(text: string, start: number, max: number): number {
  const end = start + max;
  // The last white space that is followed by a non-space, in the piece's second half.
  for (let p = end - 1; p > start + max / 2; p--) {
    if (isSpace(text.charCodeAt(p)) && !isSpace(text.charCodeAt(p + 1))) return p;
  }
  // No word boundary: cut where the piece is full, never inside a surrogate pair.
  return isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}

/** The text's pieces, in order; joined they are the text. */
export function* pieces(text: string, max = PIECE_CHARS): Generator<string> {
  let start = 0;
  while (text.length - start > max) {
    const cut = cutAfter(text, start, max);
    yield text.slice(start, cut);
    start = cut;
  }
  if (start < text.length || text.length === 0) yield text.slice(start);
}

/** Counts `text` with `count` piece by piece. */
export function countInPieces(
  text: string,
  count: (piece: string) => number,
  max = PIECE_CHARS,
): number {
  let n = 0;
  for (const p of pieces(text, max)) n += count(p);
  return n;
}
