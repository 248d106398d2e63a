import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { MAX_HEADER_BYTES, ResponseReader } from '../../cli/exec/http1.js';
import { readAll } from '../../devkit/http1.js';
import { postJson, requestHead } from '../../cli/exec/request.js';
import { cleanEnv, runCli } from '../../devkit/cli.js';

/**
 * The CLI's HTTP/1.1 exchange (cli/exec/request.ts over cli/exec/http1.ts)
 * against the wire as node:http's server writes it: every response shape is
 * produced by a real node:http server, its bytes captured off the socket,
 * and then fed to the reader (and, over TCP, to postJson) split at random
 * points. What the real server meant to send is the oracle.
 */

interface Shape {
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

const shape: fc.Arbitrary<Shape> = fc.record({
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

async function listen(
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
async function shapeServer(t: TestContext): Promise<{
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
function capture(port: number, s: Shape): Promise<Buffer> {
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
function split(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const a of [...at, bytes.length]) {
    if (a > prev) out.push(bytes.subarray(prev, a));
    prev = Math.max(prev, a);
  }
  return out;
}

const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), {
  maxLength: 40,
});

test('any response node:http writes is read whole, however TCP splits it (interim responses, chunked, Content-Length, close-framed)', async (t) => {
  const { port } = await shapeServer(t);
  await fc.assert(
    fc.asyncProperty(shape, cuts, async (s, c) => {
      const wire = await capture(port, s);
      const res = readAll(split(wire, c), s.framing === 'close');
      assert.ok(res, 'complete');
      assert.equal(res.status, s.status);
      assert.equal(res.body.toString('utf8'), s.status === 204 ? '' : s.body);
      assert.equal(res.headers.find(([n]) => n === 'content-type')?.[1], 'application/json');
    }),
    { numRuns: 150 },
  );
});

test('a framed response is complete before the close, and one cut short is an ECONNRESET, never a shorter body', async (t) => {
  const { port } = await shapeServer(t);
  await fc.assert(
    fc.asyncProperty(
      shape.filter((s) => s.framing !== 'close' && s.status !== 204 && s.body.length > 0),
      fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      async (s, f) => {
        const wire = await capture(port, s);
        // Without the close, the framing alone says where the response ends.
        assert.equal(readAll([wire], false)?.body.toString('utf8'), s.body);
        const short = wire.subarray(0, Math.floor(f * (wire.length - 1)));
        const r = new ResponseReader();
        assert.equal(r.push(short), undefined);
        assert.throws(
          () => r.end(),
          (e: NodeJS.ErrnoException) => e.code === 'ECONNRESET',
        );
      },
    ),
    { numRuns: 100 },
  );
});

/** A server that plays `pieces` to each connection (a turn of the event loop between writes), then closes or stays open. */
async function replay(
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

test('postJson over TCP: the real server response split into random writes gives the status and body node:http would', async (t) => {
  const { port } = await shapeServer(t);
  await fc.assert(
    fc.asyncProperty(shape, cuts, async (s, c) => {
      const wire = await capture(port, s);
      const relay = await replay(t, split(wire, c));
      const res = await postJson(`http://127.0.0.1:${relay}/x/task/get`, 'tok', '{}', 5000);
      assert.ok(res.ok, res.ok ? '' : res.error.message);
      assert.equal(res.status, s.status);
      assert.equal(res.body, s.status === 204 ? '' : s.body);
    }),
    { numRuns: 40 },
  );
});

test('postJson sends one well-formed POST: method, path, Host, headers, a UTF-8 body with its byte length', async (t) => {
  const { port, seen } = await shapeServer(t);
  const s: Shape = {
    status: 200,
    body: '{"ok":true,"data":{}}',
    pieces: 1,
    framing: 'length',
    interim: [],
    padding: 0,
    trailer: false,
  };
  const body = '{"title":"é ✓ 😀"}';
  const res = await postJson(
    `http://127.0.0.1:${port}/api/x/task/create?q=1`,
    'tok.en',
    body,
    5000,
    { 'x-shape': JSON.stringify(s), 'Idempotency-Key': 'k-1' },
  );
  assert.ok(res.ok);
  assert.equal(res.body, s.body);
  assert.equal(seen.length, 1);
  const req = seen[0]!;
  assert.equal(req.method, 'POST');
  assert.equal(req.url, '/api/x/task/create?q=1');
  assert.equal(req.body, body);
  assert.equal(req.headers['content-length'], String(Buffer.byteLength(body)));
  assert.equal(req.headers.host, `127.0.0.1:${port}`);
  assert.equal(req.headers.authorization, 'Bearer tok.en');
  assert.equal(req.headers['content-type'], 'application/json');
  assert.equal(req.headers.accept, 'application/json');
  assert.equal(req.headers['idempotency-key'], 'k-1');
  assert.equal(req.headers.connection, 'close');
});

test('a header value that would split the request is refused before anything is sent', async (t) => {
  const { port, seen } = await shapeServer(t);
  for (const bad of ['a\r\nx-evil: 1', 'a\nb', 'a\u0000b', 'ü✓']) {
    await assert.rejects(
      postJson(`http://127.0.0.1:${port}/x`, 'tok', '{}', 5000, { 'x-test': bad }),
      { code: 'ERR_INVALID_CHAR' },
    );
  }
  await assert.rejects(
    postJson(`http://127.0.0.1:${port}/x`, 'tok', '{}', 5000, { 'bad name': 'v' }),
    { code: 'ERR_INVALID_HTTP_TOKEN' },
  );
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(seen.length, 0);
});

test('postJson: a connection closed early, reset, or silent mid-body ends in a code, not a hang or a partial body', async (t) => {
  const full = Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 20\r\n\r\n{"ok":true,"data":1}');
  const url = (port: number) => `http://127.0.0.1:${port}/x/task/get`;
  // Half the body, then the close.
  const cut = await replay(t, [full.subarray(0, full.length - 5)]);
  const r1 = await postJson(url(cut), 'tok', '{}', 5000);
  assert.equal(!r1.ok && r1.error.code, 'ECONNRESET');
  // Closed without a byte of answer.
  const none = await replay(t, []);
  const r2 = await postJson(url(none), 'tok', '{}', 5000);
  assert.equal(!r2.ok && r2.error.code, 'ECONNRESET');
  // Headers, then silence with the connection open: the idle timeout.
  const stall = await replay(t, [full.subarray(0, full.length - 5)], { close: false });
  const started = Date.now();
  const r3 = await postJson(url(stall), 'tok', '{}', 300);
  assert.equal(!r3.ok && r3.error.code, 'ETIMEDOUT');
  assert.ok(Date.now() - started < 5000);
  // A reset (RST) from the server.
  const reset = await listen(
    t,
    createServer((sock) => sock.once('data', () => sock.resetAndDestroy())),
  );
  const r4 = await postJson(url(reset), 'tok', '{}', 5000);
  assert.equal(!r4.ok && r4.error.code, 'ECONNRESET');
  // The whole answer, with the server keeping the connection open: complete without waiting for the close.
  const open = await replay(t, [full], { close: false });
  const r5 = await postJson(url(open), 'tok', '{}', 60_000);
  assert.ok(r5.ok);
  assert.equal(r5.body, '{"ok":true,"data":1}');
});

test('the built CLI prints the same for every framing, and names the failure when the answer is broken or cut short', async (t) => {
  const envelope = (b: string, status = '200 OK') =>
    `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(b)}\r\n\r\n${b}`;
  const data = '{"ok":true,"data":{"task":{"id":"task_Rctm06woo6H9iW5Vaps2","title":"é✓😀"}}}';
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-h1-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'token'), 'tok\n', { mode: 0o600 });
  const chunked = Buffer.concat([
    Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n'),
    ...[...Buffer.from(data)].map((b) =>
      Buffer.concat([Buffer.from('1\r\n'), Buffer.from([b]), Buffer.from('\r\n')]),
    ),
    Buffer.from('0\r\n\r\n'),
  ]);
  // A refusal is an envelope on stdout as well as a message on stderr.
  const unavailable = (why: RegExp) =>
    new RegExp(
      `^\\{"ok":false,"error":\\{"code":"unavailable","message":"no daemon at http://127\\.0\\.0\\.1:\\d+ \\(${why.source}\\)[^"]*"\\}\\}\\n$`,
    );
  const cases: [string, string | Buffer, number, string | RegExp, RegExp | ''][] = [
    ['length', envelope(data), 0, `${data}\n`, ''],
    ['chunked, one byte a chunk', chunked, 0, `${data}\n`, ''],
    [
      'interim',
      `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n${envelope(data)}`,
      0,
      `${data}\n`,
      '',
    ],
    ['close-framed', `HTTP/1.1 200 OK\r\n\r\n${data}`, 0, `${data}\n`, ''],
    [
      'error envelope',
      envelope('{"ok":false,"error":{"code":"not_found","message":"no task"}}', '404 Not Found'),
      1,
      '{"ok":false,"error":{"code":"not_found","message":"no task"}}\n',
      '',
    ],
    [
      'cut short',
      Buffer.from(envelope(data)).subarray(0, -3),
      3,
      unavailable(/ECONNRESET/),
      /^agentteam exec: no daemon at http:\/\/127\.0\.0\.1:\d+ \(ECONNRESET\); the action may or may not have been applied\n$/,
    ],
    [
      'not HTTP',
      'SSH-2.0-x\r\n\r\n',
      3,
      unavailable(/HPE_INVALID_CONSTANT/),
      /^agentteam exec: no daemon at http:\/\/127\.0\.0\.1:\d+ \(HPE_INVALID_CONSTANT\)\n$/,
    ],
    [
      'head too large',
      `HTTP/1.1 200 OK\r\nx: ${'a'.repeat(MAX_HEADER_BYTES)}\r\ncontent-length: 2\r\n\r\n{}`,
      3,
      unavailable(/HPE_HEADER_OVERFLOW/),
      /\(HPE_HEADER_OVERFLOW\)\n$/,
    ],
  ];
  for (const [what, reply, code, stdout, stderr] of cases) {
    // The answer arrives in small pieces, as a slow link would deliver it.
    const bytes = Buffer.isBuffer(reply) ? reply : Buffer.from(reply, 'utf8');
    const pieces: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 7) pieces.push(bytes.subarray(i, i + 7));
    const port = await replay(t, pieces);
    const r = await runCli(['exec', 'task', 'get', '{"id":"task_Rctm06woo6H9iW5Vaps2"}'], {
      env: cleanEnv({
        AGENTTEAM_EXEC_BASE_URL: `http://127.0.0.1:${port}/x`,
        AGENTTEAM_EXEC_TOKEN_FILE: join(dir, 'token'),
      }),
    });
    assert.equal(r.code, code, what);
    if (typeof stdout === 'string') assert.equal(r.stdout, stdout, what);
    else assert.match(r.stdout, stdout, what);
    if (stderr === '') assert.equal(r.stderr, '', what);
    else assert.match(r.stderr, stderr, what);
  }
});
