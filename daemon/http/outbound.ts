import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { systemClock, type Clock } from '../../lib/clock.js';

/** Why an outbound call produced no usable answer. */
type OutboundFailure = 'timeout' | 'cancelled' | 'unreachable' | 'too_large';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

interface OutboundPost {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The whole call, connect to last byte. */
  readonly timeoutMs: number;
  /** Answers larger than this (declared or received) are cut off. */
  readonly maxBytes: number;
  /** The caller's cancellation (the runtime's revocation); ends the call at once. */
  readonly signal: AbortSignal;
  readonly clock?: Clock;
}

export interface OutboundAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * One POST from the daemon to a service it forwards to (extension upstreams,
 * the knowledge upstream). The call owns its deadline: a timer it starts and
 * clears when it settles, so the deadline cannot be lost (a deadline carried
 * only by `AbortSignal.timeout` composed with `AbortSignal.any` was collected
 * under allocation pressure, and the call then hung with its socket and slot
 * held). Timeout, cancellation and an oversized answer all destroy the
 * request and its socket; the promise settles exactly once. Redirects are
 * not followed (a 3xx is returned as a status).
 */
export function postBounded(p: OutboundPost): Promise<OutboundAnswer> {
  const clock = p.clock ?? systemClock;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    if (p.signal.aborted) return reject(new OutboundError('cancelled', 'the call was cancelled'));
    let url: URL;
    try {
      url = new URL(p.url);
    } catch {
      return reject(new OutboundError('unreachable', 'the upstream URL is not valid'));
    }
    const send =
      url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : null;
    if (!send)
      return reject(
        new OutboundError(
          'unreachable',
          `the upstream URL scheme ${url.protocol} is not http or https`,
        ),
      );
    let settled = false;
    let req: ClientRequest | null = null;
    const finish = (err: OutboundError | null, answer?: OutboundAnswer): void => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      p.signal.removeEventListener('abort', onAbort);
      if (err) {
        req?.destroy();
        reject(err);
      } else {
        resolve(answer!);
      }
    };
    const onAbort = (): void => finish(new OutboundError('cancelled', 'the call was cancelled'));
    const timer = clock.setTimeout(
      () => finish(new OutboundError('timeout', `no answer within ${p.timeoutMs} ms`)),
      p.timeoutMs,
    );
    p.signal.addEventListener('abort', onAbort, { once: true });
    const tooLarge = () =>
      new OutboundError('too_large', `the answer is larger than ${p.maxBytes} bytes`);
    try {
      req = send(url, {
        method: 'POST',
        headers: { ...p.headers, 'content-length': String(Buffer.byteLength(p.body)) },
      });
    } catch {
      return finish(new OutboundError('unreachable', 'the upstream cannot be reached'));
    }
    req.on('error', () =>
      finish(new OutboundError('unreachable', 'the upstream cannot be reached')),
    );
    req.on('response', (res: IncomingMessage) => {
      const declared = Number(res.headers['content-length'] ?? '0');
      if (declared > p.maxBytes) return finish(tooLarge());
      const chunks: Buffer[] = [];
      let total = 0;
      res.on('data', (c: Buffer) => {
        if (settled) return;
        total += c.length;
        if (total > p.maxBytes) return finish(tooLarge());
        chunks.push(c);
      });
      res.on('end', () =>
        finish(null, { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', () =>
        finish(new OutboundError('unreachable', 'the upstream connection failed')),
      );
      res.on('aborted', () =>
        finish(new OutboundError('unreachable', 'the upstream connection was cut')),
      );
    });
    req.end(p.body);
  });
}
