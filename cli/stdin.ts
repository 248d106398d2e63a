import { readSync } from 'node:fs';

/**
 * All of standard input, read synchronously while it blocks and
 * asynchronously once it turns out non-blocking (some parents hand one
 * down: reading it synchronously fails with EAGAIN). With `limit`, reading
 * stops one byte past it and the answer is null, so an input of exactly
 * `limit` bytes is accepted and one byte more is not, without reading the
 * rest of an oversized input into memory.
 */
export async function readStdin(limit = Number.POSITIVE_INFINITY): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  const take = (chunk: Buffer): boolean => {
    total += chunk.length;
    if (total > limit) return false;
    chunks.push(chunk);
    return true;
  };
  const buf = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN') throw err;
      for await (const chunk of process.stdin) if (!take(chunk as Buffer)) return null;
      break;
    }
    if (n === 0) break;
    if (!take(Buffer.from(buf.subarray(0, n)))) return null;
  }
  return Buffer.concat(chunks);
}
