import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_HEADER_BYTES } from '../../cli/exec/http1.js';
import { postJson } from '../../cli/exec/request.js';
import { cleanEnv, runCli } from '../../devkit/cli.js';
import { listen, replay, shapeServer, type Shape } from '../../devkit/http1.js';

/**
 * The request the CLI's HTTP/1.1 exchange sends (cli/exec/request.ts), what
 * it refuses to send, how a connection that fails mid-answer ends, and what
 * the built CLI prints for each framing and failure.
 */

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
