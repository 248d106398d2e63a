import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { call, closeHttp } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Runtime } from '../../devkit/daemon.js';

test.after(() => closeHttp());

async function allIds(rt: Runtime): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  do {
    const r = await call(rt, 'task', 'list', { limit: 100, ...(cursor ? { cursor } : {}) });
    assert.equal(r.status, 200, r.text);
    for (const x of r.json.data.tasks) ids.add(x.id);
    cursor = r.json.data.nextCursor;
  } while (cursor);
  return ids;
}

test('kill -9 during 500 sequential creates: every create that returned ok is present after restart', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const acknowledged: string[] = [];
  let failures = 0;
  const killAt = 150 + Math.floor(Math.random() * 200);
  for (let i = 0; i < 500; i++) {
    if (i === killAt) d.kill9();
    try {
      const r = await call(rt, 'task', 'create', { title: `seq ${i}` });
      if (r.status === 200 && r.json.ok) acknowledged.push(r.json.data.task.id);
      else failures++;
    } catch {
      failures++;
    }
  }
  assert.ok(
    acknowledged.length >= killAt - 1,
    `${acknowledged.length} acknowledged before the kill at ${killAt}`,
  );
  assert.ok(failures > 0, 'the kill interrupted the sequence');
  await rt.close();
  await d.start();
  const rt2 = await startRuntime(d);
  t.after(() => rt2.close());
  const present = await allIds(rt2);
  for (const id of acknowledged) assert.ok(present.has(id), `acknowledged create ${id} lost`);
});
