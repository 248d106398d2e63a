import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import { FORBIDDEN_BODY } from '../../daemon/http/runtime-auth.js';
import { call, closeHttp, post } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime, type Runtime } from '../../devkit/daemon.js';

test.after(() => closeHttp());

const MiB = 1024 * 1024;

/** Sends `total` bytes of a JSON string body one chunk every `everyMs`; resolves with the response and when it came. */
function trickle(
  rt: Runtime,
  totalMs: number,
  everyMs: number,
): Promise<{ status: number; json: any; afterMs: number }> {
  const started = Date.now();
  const chunks = Math.ceil(totalMs / everyMs);
  const body = `{"title":"${'x'.repeat(chunks)}"}`;
  return new Promise((resolve, reject) => {
    const req = request(
      `${rt.base}/task/create`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${rt.token()}`,
          'content-type': 'application/json',
          'content-length': String(body.length),
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          clearInterval(timer);
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(parts).toString() || 'null'),
            afterMs: Date.now() - started,
          });
        });
      },
    );
    req.on('error', (err) => {
      clearInterval(timer);
      reject(err);
    });
    let sent = 0;
    req.write(body.slice(0, 10));
    sent = 10;
    const timer = setInterval(() => {
      if (sent >= body.length || req.destroyed) return clearInterval(timer);
      req.write(body[sent]!);
      sent++;
    }, everyMs);
  });
}

/** A body streamed without Content-Length (chunked), so only the streaming limit can stop it. */
function chunked(rt: Runtime, size: number): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${rt.base}/task/create`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${rt.token()}`,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(parts).toString()),
          }),
        );
      },
    );
    req.on('error', reject);
    const piece = Buffer.alloc(64 * 1024, 0x20);
    let left = size;
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, piece.length);
        left -= n;
        if (!req.write(piece.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

test('body limits: 1 MiB + 1 byte is 413 (declared or streamed); exactly 1 MiB is read', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const over = `{"title":"${'x'.repeat(MiB + 1 - 12)}"}`;
  assert.equal(over.length, MiB + 1);
  const declared = await post(`${rt.base}/task/create`, rt.token(), over);
  assert.equal(declared.status, 413);
  assert.equal(declared.json.error.code, 'body_too_large');
  const streamed = await chunked(rt, MiB + 1);
  assert.equal(streamed.status, 413);
  // Exactly at the limit the body is read and judged by the schema instead.
  const atLimit = await post(`${rt.base}/task/create`, rt.token(), over.slice(1));
  assert.notEqual(atLimit.status, 413);
  assert.equal(atLimit.status, 400);
});

test('a body trickled over 6 s gets 408 at the 5 s deadline and its admission slot is free again', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  // Fill all 32 slots of this authorization with trickling clients.
  const slow = Array.from({ length: 32 }, () => trickle(rt, 6_000, 200));
  await new Promise((r) => setTimeout(r, 500));
  const busy = await call(rt, 'task', 'list', {});
  assert.equal(busy.status, 409, 'slots are taken while the bodies trickle');
  const results = await Promise.all(slow);
  for (const r of results) {
    assert.equal(r.status, 408);
    assert.equal(r.json.error.code, 'read_timeout');
    // Absolute: not before 5 s from the headers (the client's clock started a little earlier), well before 6 s.
    assert.ok(r.afterMs >= 4_950 && r.afterMs < 6_000, `answered after ${r.afterMs} ms`);
  }
  const after = await call(rt, 'task', 'list', {});
  assert.equal(after.status, 200, after.text);
  const status = JSON.parse((await cli(d.home, ['daemon', 'status'])).stdout).data;
  assert.equal(status.inFlight, 0);
});

test('malformed JSON is 400 invalid_json, never 5xx', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const table: [string, string | Uint8Array][] = [
    ['empty', ''],
    ['trailing data', '{"title":"x"} {"title":"y"}'],
    ['trailing garbage', '{"title":"x"}garbage'],
    ['duplicate keys', '{"title":"x","title":"y"}'],
    ['deep nesting', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['unbalanced deep nesting', '{"a":'.repeat(50_000)],
    [
      'invalid UTF-8',
      Uint8Array.from([...Buffer.from('{"title":"'), 0xc3, 0x28, ...Buffer.from('"}')]),
    ],
    [
      'lone continuation byte',
      Uint8Array.from([...Buffer.from('{"title":"'), 0x80, ...Buffer.from('"}')]),
    ],
    ['not JSON', 'title=x'],
    ['truncated', '{"title":'],
  ];
  for (const [name, body] of table) {
    const r = await post(`${rt.base}/task/create`, rt.token(), body);
    assert.equal(r.status, 400, `${name}: ${r.status} ${r.text}`);
    assert.equal(r.json.error.code, 'invalid_json', name);
  }
  const schema = await post(`${rt.base}/task/create`, rt.token(), '{"title":5,"extra":true}');
  assert.equal(schema.status, 400);
  assert.equal(schema.json.error.code, 'validation_failed');
  assert.deepEqual(schema.json.error.details.map((x: { path: string }) => x.path).sort(), [
    '/extra',
    '/title',
  ]);
  const unknown = await post(`${rt.base}/task/delete`, rt.token(), '{}');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, 'not_found');
  const ok = await post(`${rt.base}/task/create`, rt.token(), '\n {"title":"fine"} \n');
  assert.equal(ok.status, 200);
});

test('revoking the authorization while the body is read answers the standard 403, not a success', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const pending = trickle(rt, 3_000, 100);
  await new Promise((r) => setTimeout(r, 500));
  await rt.close(); // `run` ends: the daemon revokes the authorization and aborts its requests
  const r = await pending;
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, JSON.parse(FORBIDDEN_BODY));
  assert.ok(r.afterMs < 3_000, 'answered before the body finished');
});
