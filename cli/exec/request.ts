import { connect } from 'node:net';
import { FIELD_NAME, FIELD_VALUE, httpError, ResponseReader } from './http1.js';

type PostResult =
  | { readonly ok: true; readonly status: number; readonly body: string }
  | { readonly ok: false; readonly error: NodeJS.ErrnoException };

/** A daemon that accepts the connection but stays silent this long is treated as gone. */
export const ANSWER_TIMEOUT_MS = 120_000;

/** The request head; a header that could not be sent as is throws, as node:http's request() does. */
export function requestHead(
  target: URL,
  headers: Readonly<Record<string, string | number>>,
): string {
  let head = `POST ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n`;
  for (const [name, raw] of Object.entries(headers)) {
    const value = String(raw);
    if (!FIELD_NAME.test(name))
      throw Object.assign(new TypeError(`Header name must be a valid HTTP token ["${name}"]`), {
        code: 'ERR_INVALID_HTTP_TOKEN',
      });
    if (!FIELD_VALUE.test(value))
      throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), {
        code: 'ERR_INVALID_CHAR',
      });
    head += `${name}: ${value}\r\n`;
  }
  return `${head}Connection: close\r\n\r\n`;
}

/**
 * Exactly one POST, HTTP/1.1 over one node:net connection, closed once the
 * answer is read (cli/exec/http1.ts reads it). Not node:http: loading it costs
 * several ms of every CLI call (bench/history.md, CLI start), and not fetch,
 * whose undici costs ~85 ms. Resolves with `ETIMEDOUT` when the connection
 * stays idle for `timeoutMs`, with `ECONNRESET` when it closes before the
 * answer is complete, and with the socket's own error (`ECONNREFUSED`...)
 * otherwise.
 */
export function postJson(
  url: string,
  token: string,
  body: string,
  timeoutMs = ANSWER_TIMEOUT_MS,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<PostResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    if (target.protocol !== 'http:')
      throw Object.assign(
        new TypeError(`Protocol "${target.protocol}" not supported. Expected "http:"`),
        { code: 'ERR_INVALID_PROTOCOL' },
      );
    const payload = Buffer.from(body, 'utf8');
    const head = requestHead(target, {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': payload.length,
      accept: 'application/json',
      ...extraHeaders,
    });
    const reader = new ResponseReader();
    let settled = false;
    const settle = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(result);
    };
    const fail = (error: NodeJS.ErrnoException): void => settle({ ok: false, error });
    const answered = (res: { status: number; body: Buffer }): void =>
      settle({ ok: true, status: res.status, body: res.body.toString('utf8') });
    // An IPv6 literal's URL hostname keeps its brackets; net wants the bare address.
    const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    const socket = connect({ host, port: Number(target.port || 80) });
    socket.setTimeout(timeoutMs, () =>
      fail(httpError('ETIMEDOUT', `no answer within ${timeoutMs} ms`)),
    );
    socket.on('error', fail);
    socket.on('data', (chunk: Buffer) => {
      try {
        const res = reader.push(chunk);
        if (res) answered(res);
      } catch (err) {
        fail(err as NodeJS.ErrnoException);
      }
    });
    // The server's end of the stream, or the socket closed without one: a response framed by the close is complete now.
    const closed = (): void => {
      if (settled) return;
      try {
        answered(reader.end());
      } catch (err) {
        fail(err as NodeJS.ErrnoException);
      }
    };
    socket.on('end', closed);
    socket.on('close', closed);
    // Written at once (net holds it until the connection is up), and not half-closed after:
    // a node:http server aborts a request whose client ends its side before the answer.
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
  });
}
