import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { call, closeHttp, startDaemon, startRuntime } from './exec-harness.js';

test.after(() => closeHttp());

test('result boundary through the daemon: a read over 64 KiB and a mutation over 64 KiB', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  for (let i = 0; i < 10; i++) {
    const r = await call(rt, 'task', 'create', { title: `big ${i}`, description: 'd'.repeat(10_000) });
    assert.equal(r.status, 200);
  }
  const small = await call(rt, 'task', 'list', { limit: 5 });
  assert.equal(small.status, 200);
  assert.ok(Buffer.byteLength(small.text) <= 64 * 1024);
  const big = await call(rt, 'task', 'list', { limit: 10 });
  assert.equal(big.status, 422, big.text.slice(0, 200));
  assert.equal(big.json.error.code, 'result_budget_exceeded');
  assert.match(big.json.error.hint, /fewer tasks per page/);
  assert.deepEqual(big.json.error.next, { action: 'task list', input: { limit: 5 } });
  assert.equal(big.json.error.metadata, undefined);

  // Control characters serialize as \u00XX: 20 000 of them make a 120 KB result from a valid input.
  const desc = '\u0001'.repeat(20_000);
  const created = await call(rt, 'task', 'create', { title: 'SECRET-TITLE', description: desc, idempotencyKey: 'huge-1' });
  assert.equal(created.status, 422);
  assert.equal(created.json.error.code, 'result_budget_exceeded');
  const receipt = created.json.error.metadata.mutation_receipt;
  assert.equal(created.json.error.metadata.mutation_applied, true);
  assert.equal(receipt.entity, 'task');
  assert.equal(receipt.revision, 1);
  assert.equal(receipt.idempotencyKey, 'huge-1');
  assert.deepEqual(receipt.retrieval, { action: 'task get', input: { id: receipt.id } });
  assert.ok(!created.text.includes('SECRET-TITLE'));
  assert.equal(created.json.error.hint, undefined, 'no replay advice for a mutation');
  // The mutation did apply: the task is there (and too big to read back whole).
  const get = await call(rt, 'task', 'get', { id: receipt.id });
  assert.equal(get.json.error.code, 'result_budget_exceeded');
  const page = await call(rt, 'task', 'list', { limit: 1 });
  assert.equal(page.json.error.code, 'result_budget_exceeded');
  // A replay of the same key returns the same receipt, not a second task.
  const replay = await call(rt, 'task', 'create', { title: 'SECRET-TITLE', description: desc, idempotencyKey: 'huge-1' });
  assert.deepEqual(replay.json.error.metadata.mutation_receipt, receipt);
});
