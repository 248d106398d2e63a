import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { LIMITS } from '../../catalog/limits.js';
import { call, closeHttp } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';

test.after(() => closeHttp());

test('result boundary through the daemon: a page over 64 KiB continues from the same position; an input that could not fit is refused', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  for (let i = 0; i < 10; i++) {
    // 5 000 quotes: 10 000 bytes as JSON, within the description's published 6 826 code points.
    const r = await call(rt, 'task', 'create', {
      title: `big ${i}`,
      description: '"'.repeat(5_000),
    });
    assert.equal(r.status, 200);
  }
  const small = await call(rt, 'task', 'list', { limit: 5 });
  assert.equal(small.status, 200);
  assert.ok(Buffer.byteLength(small.text) <= 64 * 1024);
  const big = await call(rt, 'task', 'list', { status: 'todo', limit: 10 });
  assert.equal(big.status, 422, big.text.slice(0, 200));
  assert.equal(big.json.error.code, 'result_budget_exceeded');
  // Six 10 KB tasks fit, seven do not: the largest page that fits, same filters, no cursor (the caller had none).
  assert.deepEqual(big.json.error.next, {
    action: 'task list',
    input: { status: 'todo', limit: 6 },
  });
  assert.equal(big.json.error.metadata, undefined);
  const followed = await call(rt, 'task', 'list', big.json.error.next.input);
  assert.equal(followed.status, 200);
  assert.equal(followed.json.data.tasks.length, 6);

  // Control characters serialize as \u00XX: 20 000 of them used to make a 120 KB task from a valid input.
  // The published limit refuses it before any effect: nothing is stored, the idempotency key stays unused.
  const desc = '\u0001'.repeat(20_000);
  const refused = await call(rt, 'task', 'create', {
    title: 'SECRET-TITLE',
    description: desc,
    idempotencyKey: 'huge-1',
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.error.code, 'validation_failed');
  assert.deepEqual(
    [...new Set(refused.json.error.details.map((x: { path: string }) => x.path))],
    ['/description'],
  );
  assert.ok(
    refused.json.error.details.some((x: { message: string }) =>
      x.message.includes(`more than ${LIMITS.taskDescription.chars} characters`),
    ),
    refused.text,
  );
  const first = await call(rt, 'task', 'list', { limit: 5 });
  const rest = await call(rt, 'task', 'list', { limit: 5, cursor: first.json.data.nextCursor });
  assert.equal(first.json.data.tasks.length + rest.json.data.tasks.length, 10);
  assert.equal(rest.json.data.hasMore, false);
  const again = await call(rt, 'task', 'create', { title: 'small', idempotencyKey: 'huge-1' });
  assert.equal(again.status, 200, 'the key of a refused request was not recorded');
});
