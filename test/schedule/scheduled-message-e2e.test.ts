import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { call, closeHttp } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime } from '../../devkit/daemon.js';
import { sleep } from '../../devkit/wait.js';

test.after(() => closeHttp());

async function history(
  home: string,
  server: string,
  target: string,
): Promise<{ content: string; author: string }[]> {
  const r = await cli(home, ['message', 'history', '--server', server, '--target', target]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).data.messages;
}

test('real daemon: due in 2 s is delivered once; a due time passed while stopped is caught up late after restart', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  let rt = await startRuntime(d);
  const soon = await call(rt, 'scheduled-message', 'create', {
    target: 'channel:e2e',
    content: 'in two seconds',
    at: new Date(Date.now() + 2000).toISOString(),
  });
  assert.equal(soon.status, 200, soon.text);
  await sleep(2000);
  let seen: string[] = [];
  for (let i = 0; i < 50 && seen.length === 0; i++, await sleep(100))
    seen = (await history(d.home, 's1', 'channel:e2e')).map((m) => m.content);
  assert.deepEqual(seen, ['in two seconds']);
  // Due well after the stop below completes (a stop takes well under a second), long before the restart.
  const dueAt = Date.now() + 6000;
  const later = await call(rt, 'scheduled-message', 'create', {
    target: 'channel:e2e',
    content: 'while down',
    at: new Date(dueAt).toISOString(),
  });
  const laterId = later.json.data.scheduledMessage.id;
  await rt.close();
  await d.stop();
  assert.ok(Date.now() < dueAt, 'the daemon was stopped before the due time');
  await sleep(dueAt - Date.now() + 1500);
  await d.start();
  rt = await startRuntime(d);
  t.after(() => rt.close());
  const msgs = await history(d.home, 's1', 'channel:e2e');
  assert.deepEqual(
    msgs.map((m) => m.content),
    ['while down', 'in two seconds'],
  );
  assert.equal(msgs[0]!.author, 'agent:a1');
  const runs = (await call(rt, 'scheduled-message', 'runs', { id: laterId })).json.data.runs;
  assert.equal(runs.length, 1);
  assert.deepEqual([runs[0].outcome, runs[0].late, runs[0].missed], ['delivered', true, 1]);
  const first = (
    await call(rt, 'scheduled-message', 'runs', { id: soon.json.data.scheduledMessage.id })
  ).json.data.runs;
  assert.deepEqual([first.length, first[0].late], [1, false]);
  await sleep(500);
  assert.equal(
    (await history(d.home, 's1', 'channel:e2e')).length,
    2,
    'nothing is delivered twice',
  );
});
