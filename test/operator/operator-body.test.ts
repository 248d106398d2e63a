import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { operatorCall, rawRequest } from '../../devkit/http.js';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every operator route that takes a JSON body (the client-tools routes have their own tests). */
const ROUTES = [
  '/api/v1/messages',
  '/api/v1/runtimes',
  '/api/v1/store/backup',
  '/api/v1/extensions',
  '/api/v1/approvals/appr_00000000000000000000000000/decide',
  '/api/v1/tools/asks/ask_0/answer',
];

test('operator routes read their JSON bodies under the Exec rules: 1 MiB cap, strict JSON', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const token = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const post = (path: string, body: string) =>
    rawRequest(
      new URL(path, d.url).toString(),
      'POST',
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    );

  for (const path of ROUTES) {
    // One byte past the cap: a string that makes the body 1 MiB + 1.
    const over = `{"x":"${'a'.repeat(1024 * 1024 - 7)}"}`;
    assert.equal(Buffer.byteLength(over), 1024 * 1024 + 1);
    const big = await post(path, over);
    assert.equal(big.status, 413, `${path}: ${big.body.slice(0, 200)}`);
    assert.equal(JSON.parse(big.body).error.code, 'body_too_large', path);

    const dup = await post(path, '{"a":1,"a":2}');
    assert.equal(dup.status, 400, `${path}: ${dup.body}`);
    assert.equal(JSON.parse(dup.body).error.code, 'invalid_json', path);

    const trailing = await post(path, '{} {}');
    assert.equal(JSON.parse(trailing.body).error.code, 'invalid_json', path);
  }
  // The routes still work with a good body.
  const ok = await operatorCall(d, 'POST', '/api/v1/messages', {
    serverId: 'local',
    target: 'channel:general',
    author: 'human:ada',
    content: 'hello',
  });
  assert.equal(ok.status, 201, ok.body);
});
