import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { call, closeHttp } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime } from '../../devkit/daemon.js';
import { PG_PASSWORD, clusterOfFile, freshDatabase } from '../../devkit/pg.js';
import { sleep } from '../../devkit/wait.js';

/**
 * The shared database goes away while a daemon runs, and comes back: calls in
 * between fail with a typed error that names the store (never its password),
 * the daemon itself keeps running, and once the database is back the same
 * daemon serves again and delivers what fell due meanwhile, without a restart.
 */
test.after(() => closeHttp());

test('a database outage: upstream_error naming the host while it lasts; served again and due schedules delivered after, same daemon', async (t) => {
  const url = await freshDatabase();
  const cluster = await clusterOfFile();
  const d = await startDaemon({ args: ['--store', url] });
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 's1', agent: 'a1' });
  t.after(() => rt.close());
  const task = (await call(rt, 'task', 'create', { title: 'before the outage' })).json.data.task;
  const s = await call(rt, 'scheduled-message', 'create', {
    target: 'channel:ops',
    content: 'due while down',
    at: new Date(Date.now() + 1500).toISOString(),
  });
  assert.equal(s.status, 200, s.text);

  await cluster.pause();
  const during = await call(rt, 'task', 'get', { id: task.id });
  assert.equal(during.status, 502, during.text);
  assert.equal(during.json.error.code, 'upstream_error');
  assert.match(during.json.error.message, new RegExp(`127\\.0\\.0\\.1:${cluster.port}/`));
  assert.ok(
    !during.text.includes(PG_PASSWORD) && !during.text.includes(encodeURIComponent(PG_PASSWORD)),
  );
  await sleep(2500); // the schedule falls due while the database is away
  const status = await cli(d.home, ['daemon', 'status']);
  assert.equal(status.code, 0, 'the daemon is still up');

  await cluster.resume();
  let back = await call(rt, 'task', 'get', { id: task.id });
  for (let i = 0; i < 20 && back.status !== 200; i++, await sleep(100))
    back = await call(rt, 'task', 'get', { id: task.id });
  assert.equal(back.status, 200, back.text);
  assert.equal(back.json.data.task.title, 'before the outage');
  let delivered: { content: string }[] = [];
  for (let i = 0; i < 50 && delivered.length === 0; i++, await sleep(100)) {
    const h = await cli(d.home, [
      'message',
      'history',
      '--server',
      's1',
      '--target',
      'channel:ops',
    ]);
    delivered = h.code === 0 ? JSON.parse(h.stdout).data.messages : [];
  }
  assert.deepEqual(
    delivered.map((m) => m.content),
    ['due while down'],
  );
  const log = join(d.home, 'daemon.log');
  if (existsSync(log)) {
    const text = readFileSync(log, 'utf8');
    assert.ok(
      !text.includes(PG_PASSWORD) && !text.includes(encodeURIComponent(PG_PASSWORD)),
      'daemon.log carries the password',
    );
  }
});
