import { LIMITS, clipJson } from '../../catalog/limits.js';
import type { Masked } from '../masking/masked.js';
/**
 * Splits a document into passages for the full-text index: a new passage
 * starts at a Markdown heading, or when the current one reaches 24 lines or
 * about 1.5 KB. Small passages make a hit's line range tell the reader where
 * to look; line numbers are 1-based and inclusive. The document is masked
 * first (the result gate's `document`), so passage boundaries are chosen on
 * masked text and no passage holds a piece of a secret.
 */
interface Chunk {
  readonly text: string;
  readonly lineStart: number;
  readonly lineEnd: number;
}

const MAX_LINES = 24;
const MAX_CHARS = 1536;
const HEADING = /^#{1,6}\s/;

export function chunkText(text: Masked): Chunk[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const out: Chunk[] = [];
  let start = 0;
  let chars = 0;
  const flush = (end: number) => {
    if (end > start) {
      const body = lines.slice(start, end).join('\n');
      if (body.trim() !== '') out.push({ text: body, lineStart: start + 1, lineEnd: end });
    }
    start = end;
    chars = 0;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (
      i > start &&
      (HEADING.test(line) || i - start >= MAX_LINES || chars + line.length > MAX_CHARS)
    )
      flush(i);
    chars += line.length + 1;
  }
  flush(lines.length);
  return out;
}

/** The document's title (from its masked text): its first heading, else its file name. */
export function titleOf(text: Masked, path: string): string {
  const m = /^#{1,6}\s+(.+)$/m.exec(text.slice(0, 4096));
  const t = (m ? m[1]! : (path.split('/').pop() ?? path)).trim();
  return clipJson(t, LIMITS.docTitle);
}
