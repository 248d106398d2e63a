import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { call, closeHttp } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';

test.after(() => closeHttp());

test('50 concurrent creates with one idempotencyKey: one task, 50 identical results; other body conflicts', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  // A second authorization of the same server and agent (the key's scope): one
  // authorization admits only 32 requests at once, and all 50 must get through.
  const rt2 = await startRuntime(d);
  t.after(() => rt2.close());
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      call(i % 2 ? rt2 : rt, 'task', 'create', { title: 'once', idempotencyKey: 'create-once-1' }),
    ),
  );
  assert.ok(
    results.every((r) => r.status === 200),
    results.map((r) => r.status).join(','),
  );
  assert.equal(new Set(results.map((r) => r.text)).size, 1);
  const list = await call(rt, 'task', 'list', { limit: 100 });
  assert.equal(list.json.data.tasks.length, 1);
  const conflict = await call(rt, 'task', 'create', {
    title: 'other',
    idempotencyKey: 'create-once-1',
  });
  assert.equal(conflict.status, 409);
  assert.equal(conflict.json.error.code, 'idempotency_conflict');
  // Key scope is per action: the same key on update is independent.
  const id = results[0]!.json.data.task.id;
  const u1 = await call(rt, 'task', 'update', {
    id,
    status: 'done',
    idempotencyKey: 'create-once-1',
  });
  const u2 = await call(rt, 'task', 'update', {
    id,
    status: 'done',
    idempotencyKey: 'create-once-1',
  });
  assert.equal(u1.status, 200);
  assert.equal(u2.text, u1.text);
  assert.equal(u1.json.data.task.revision, 2);
  const stale = await call(rt, 'task', 'update', { id, title: 'y', expectedRevision: 1 });
  assert.equal(stale.json.error.code, 'revision_conflict');
  const empty = await call(rt, 'task', 'update', { id });
  assert.equal(empty.status, 400);
  assert.equal(empty.json.error.code, 'validation_failed');
});
