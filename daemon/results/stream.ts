import type { Matcher } from './secrets.js';

/** A line longer than this is masked and passed on in pieces (producers write short lines). */
const MAX_LINE_CHARS = 1 << 20;

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
      const end = cut < 0 ? pending.length : cut + 1;
      controller.enqueue(encoder.encode(matcher().replace(pending.slice(0, end))));
      pending = pending.slice(end);
    },
    flush(controller) {
      pending += decoder.decode();
      if (pending.length > 0) controller.enqueue(encoder.encode(matcher().replace(pending)));
    },
  });
}
