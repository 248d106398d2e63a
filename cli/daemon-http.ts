import { type Agent, request } from 'node:http';
import type { OperatorAnswer, OperatorRequest, OperatorStream } from '../lib/operator-client.js';

/**
 * The CLI's transports of the operator client (lib/operator-client.ts):
 * node:http, not fetch, since fetch's first call loads undici, milliseconds
 * of every command. Errors are node's own; each caller says them its way.
 */

/** One daemon as a caller reaches it. */
export interface DaemonTarget {
  readonly url: string;
  readonly token: string;
  /** Keeps sockets between calls (a long-lived session); the global agent otherwise. */
  readonly agent?: Agent;
  /** Headers added to every request, read when it is sent. */
  readonly headers?: () => Readonly<Record<string, string>>;
}

function send(t: DaemonTarget, r: OperatorRequest, stream?: AbortSignal) {
  const payload = r.body === undefined ? undefined : Buffer.from(r.body);
  const req = request(new URL(r.path, t.url), {
    method: r.method,
    ...(t.agent ? { agent: t.agent } : {}),
    ...(stream ? { signal: stream } : {}),
    headers: {
      authorization: `Bearer ${t.token}`,
      ...(stream ? { accept: 'text/event-stream' } : {}),
      ...t.headers?.(),
      ...(payload
        ? { 'content-type': 'application/json', 'content-length': String(payload.length) }
        : {}),
    },
  });
  req.end(payload);
  return req;
}

/** One JSON call: the status and the body as JSON (`{raw}` when it is not, null when empty). */
export function sendHttp(t: DaemonTarget, r: OperatorRequest): Promise<OperatorAnswer> {
  return new Promise((resolve, reject) => {
    const req = send(t, r);
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          json = { raw: text };
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
      res.on('error', reject);
    });
  });
}

/** One streamed call: resolves with the status once the head arrives; the body is read as it comes. */
export function openHttpStream(
  t: DaemonTarget,
  r: OperatorRequest,
  signal: AbortSignal,
): Promise<OperatorStream> {
  return new Promise((resolve, reject) => {
    const req = send(t, r, signal);
    req.on('error', reject);
    req.on('response', (res) => {
      res.setEncoding('utf8');
      resolve({ status: res.statusCode ?? 0, chunks: res });
    });
  });
}
