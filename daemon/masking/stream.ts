import type { Matcher } from './matcher.js';

/** A line longer than this is masked and passed on in pieces (producers write short lines). */
const MAX_LINE_CHARS = 1 << 20;

/**
 * Where a piece of an over-long line may end: never inside an occurrence,
 * and far enough from the end that an occurrence still arriving cannot
 * start before it (the last `longest - 1` characters wait for more input).
 */
function pieceEnd(pending: string, m: Matcher): number {
  let end = Math.max(0, pending.length - Math.max(0, m.longest - 1));
  for (const [s, e] of m.spans(pending)) if (s < end && e > end) end = s;
  return end;
}

/**
 * Masks a line-oriented stream (NDJSON, SSE) line by line, so a secret split
 * across chunks is still seen whole. The matcher is asked per line: tokens
 * rotate while a stream stays open.
 */
export function lineMasker(matcher: () => Matcher): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      const cut = pending.lastIndexOf('\n');
      if (cut < 0 && pending.length < MAX_LINE_CHARS) return;
      const m = matcher();
      const end = cut < 0 ? pieceEnd(pending, m) : cut + 1;
      controller.enqueue(encoder.encode(m.replace(pending.slice(0, end))));
      pending = pending.slice(end);
    },
    flush(controller) {
      pending += decoder.decode();
      if (pending.length > 0) controller.enqueue(encoder.encode(matcher().replace(pending)));
    },
  });
}
