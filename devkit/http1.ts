import type { TestContext } from 'node:test';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { ResponseReader, type Http1Response } from '../cli/exec/http1.js';
import { requestHead } from '../cli/exec/request.js';

/**
 * HTTP/1.1 as node:http's server writes it, for the CLI's own exchange
 * (cli/exec/request.ts over cli/exec/http1.ts): response shapes a real
 * node:http server answers with, their bytes captured off the socket, cut at
 * random points, replayed by a plain TCP server, and read back.
 */

/** Feeds the pieces to one response reader in order; `closeAtEnd` ends the stream after the last. */
export function readAll(pieces: readonly Buffer[], closeAtEnd: boolean): Http1Response | undefined {
  const r = new ResponseReader();
  let res: Http1Response | undefined;
  for (const p of pieces) res = r.push(p) ?? res;
  if (!res && closeAtEnd) res = r.end();
  return res;
}

export interface Shape {
  readonly status: number;
  readonly body: string;
  /** Written in these pieces (several pieces without a length make node send it chunked). */
  readonly pieces: number;
  readonly framing: 'length' | 'chunked' | 'close';
  readonly interim: readonly ('continue' | 'early-hints')[];
  /** An extra header of this many bytes. */
  readonly padding: number;
  readonly trailer: boolean;
}

export const shape: fc.Arbitrary<Shape> = fc.record({
  status: fc.constantFrom(200, 201, 204, 400, 404, 409, 500, 503),
  body: fc.string({ unit: 'grapheme', maxLength: 1500 }),
  pieces: fc.integer({ min: 1, max: 6 }),
  framing: fc.constantFrom('length', 'chunked', 'close'),
  interim: fc.array(fc.constantFrom('continue', 'early-hints'), { maxLength: 2 }),
  padding: fc.integer({ min: 0, max: 4000 }),
  trailer: fc.boolean(),
});

function piecesOf(text: string, n: number): string[] {
  const chars = [...text];
  const size = Math.max(1, Math.ceil(chars.length / n));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** Answers as the shape says. */
function respond(s: Shape, res: ServerResponse): void {
  for (const kind of s.interim) {
    if (kind === 'continue') res.writeContinue();
    else res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
  }
  res.statusCode = s.status;
  res.setHeader('content-type', 'application/json');
  if (s.padding > 0) res.setHeader('x-padding', 'p'.repeat(s.padding));
  const noBody = s.status === 204;
  if (s.framing === 'length' && !noBody) res.setHeader('content-length', Buffer.byteLength(s.body));
  if (s.framing === 'chunked' && s.trailer && !noBody) {
    res.setHeader('trailer', 'x-checksum');
    res.addTrailers({ 'x-checksum': 'abc' });
  }
  if (s.framing === 'close') {
    // A body framed by the end of the connection, as an HTTP/1.0-style server sends it.
    res.shouldKeepAlive = false;
    res.useChunkedEncodingByDefault = false;
  }
  if (noBody) return void res.end();
  for (const p of piecesOf(s.body, s.pieces)) res.write(p);
  res.end();
}

export async function listen(
  t: TestContext,
  server: Server | ReturnType<typeof createHttpServer>,
): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  t.after(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

/** A real node:http server answering every request with the shape in its `x-shape` header, or else its body. */
export async function shapeServer(t: TestContext): Promise<{
  port: number;
  seen: { headers: IncomingHttpHeaders; body: string; url: string; method: string }[];
}> {
  const seen: { headers: IncomingHttpHeaders; body: string; url: string; method: string }[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body, url: req.url ?? '', method: req.method ?? '' });
      respond(JSON.parse(String(req.headers['x-shape'] ?? body)) as Shape, res);
    });
  });
  return { port: await listen(t, server), seen };
}

/** The exact bytes the real server writes for one shape (read off a raw socket until it closes). */
export function capture(port: number, s: Shape): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('error', reject);
    sock.on('close', () => resolve(Buffer.concat(chunks)));
    const body = Buffer.from(JSON.stringify(s), 'utf8');
    sock.write(
      Buffer.concat([
        Buffer.from(
          requestHead(new URL(`http://127.0.0.1:${port}/x`), { 'content-length': body.length }),
          'latin1',
        ),
        body,
      ]),
    );
  });
}

/** Cut points: `cuts` fractions of the length, sorted, as byte offsets. */
export function split(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const a of [...at, bytes.length]) {
    if (a > prev) out.push(bytes.subarray(prev, a));
    prev = Math.max(prev, a);
  }
  return out;
}

export const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), {
  maxLength: 40,
});

/** A server that plays `pieces` to each connection (a turn of the event loop between writes), then closes or stays open. */
export async function replay(
  t: TestContext,
  pieces: readonly Buffer[],
  opts: { close: boolean } = { close: true },
): Promise<number> {
  const server = createServer((sock) => {
    sock.on('error', () => undefined);
    sock.once('data', async () => {
      for (const p of pieces) {
        if (sock.destroyed) return;
        sock.write(p);
        await new Promise((r) => setImmediate(r));
      }
      if (opts.close) sock.end();
    });
  });
  return listen(t, server);
}
