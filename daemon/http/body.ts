import type { Context } from 'hono';
import type { CallView } from './call-view.js';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import { readWatch, type WatchedRead } from './read-watch.js';
import { nodeRequestOf } from './node-request.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const READ_DEADLINE_MS = 5_000;

interface ReadBodyOptions {
  readonly limit?: number;
  readonly deadlineMs?: number;
  readonly clock: Clock;
  /** The authorization's signal: a revoked request stops reading at once. */
  readonly signal: AbortSignal;
  /** Counts the bytes read so far, also when the read fails part way (the audit trail records what was read). */
  readonly counted?: { bytes: number };
}

/** Thrown when the authorization was revoked while the body was being read. */
export class RevokedError extends Error {
  override name = 'RevokedError';
}

/**
 * Reads the whole body, at most `limit` bytes, under one absolute deadline
 * measured from the call (not an idle timeout: a client trickling a byte a
 * second cannot keep its admission slot longer than the deadline). The
 * declared Content-Length is checked before any byte is read.
 */
async function readBody(req: Request, opts: ReadBodyOptions): Promise<Uint8Array> {
  const limit = opts.limit ?? BODY_LIMIT_BYTES;
  const declared = req.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (opts.signal.aborted) throw new RevokedError();
  const stream = req.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let stop: ((err: Error) => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  stopped.catch(() => {});
  const timer = opts.clock.setTimeout(
    () =>
      stop!(
        new ExecError(
          'read_timeout',
          `the body did not arrive within ${(opts.deadlineMs ?? READ_DEADLINE_MS) / 1000} s`,
        ),
      ),
    opts.deadlineMs ?? READ_DEADLINE_MS,
  );
  const onAbort = () => stop!(new RevokedError());
  opts.signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), stopped]);
      if (done) break;
      total += value.byteLength;
      if (opts.counted) opts.counted.bytes = total;
      if (total > limit) throw tooLarge(limit);
      chunks.push(value);
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    throw err;
  } finally {
    opts.clock.clearTimeout(timer);
    opts.signal.removeEventListener('abort', onAbort);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function tooLarge(limit: number): ExecError {
  return new ExecError('body_too_large', `the body is larger than ${limit} bytes`, {
    hint: 'Send a smaller input.',
  });
}

/**
 * The same contract as `readBody`, reading the Node request directly: on
 * @hono/node-server this avoids building a web Request and a web stream for
 * every call, which is most of the per-request cost of a small body. The
 * deadline and revocation are watched by the shared `ReadWatch` (one timer,
 * one listener per authorization) rather than per request.
 */
function readNodeBody(incoming: IncomingMessage, opts: ReadBodyOptions): Promise<Uint8Array> {
  const limit = opts.limit ?? BODY_LIMIT_BYTES;
  const deadlineMs = opts.deadlineMs ?? READ_DEADLINE_MS;
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  if (opts.signal.aborted) return Promise.reject(new RevokedError());
  if (incoming.readableEnded) return Promise.resolve(new Uint8Array(0));
  // When the parser already has the whole message, take it without listeners.
  if (incoming.complete && !incoming.readableDidRead) {
    const chunks: Buffer[] = [];
    let total = 0;
    for (
      let c = incoming.read() as Buffer | null;
      c !== null;
      c = incoming.read() as Buffer | null
    ) {
      total += c.byteLength;
      if (opts.counted) opts.counted.bytes = total;
      if (total > limit) return Promise.reject(tooLarge(limit));
      chunks.push(c);
    }
    return Promise.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
  }
  const watch = readWatch(opts.clock);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      watch.remove(watched);
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err) {
        // Stop buffering what the client still sends; the response closes the connection.
        incoming.pause();
        reject(err);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (opts.counted) opts.counted.bytes = total;
      if (total > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onError = (err: Error) => finish(err);
    const onClose = () =>
      finish(new Error('the client closed the connection before the body ended'));
    const watched: WatchedRead = {
      deadlineAt: opts.clock.now() + deadlineMs,
      signal: opts.signal,
      stop: (why) =>
        finish(
          why === 'revoked'
            ? new RevokedError()
            : new ExecError(
                'read_timeout',
                `the body did not arrive within ${deadlineMs / 1000} s`,
              ),
        ),
    };
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    watch.add(watched);
  });
}

/**
 * A route's body, whichever request it has: read straight from the Node
 * request on @hono/node-server (no web Request stream is built, which is most
 * of a small call's cost), else from the web body. Both keep the same limit,
 * deadline and revocation contract.
 */
export function readRequestBody(c: Context | CallView, opts: ReadBodyOptions): Promise<Uint8Array> {
  const incoming = nodeRequestOf(c);
  // Without a Node request it is hono's Context over a web Request (NodeCall always has one).
  return incoming ? readNodeBody(incoming, opts) : readBody((c as Context).req.raw, opts);
}
