import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  BIN,
  cli,
  firstLine,
  startDaemon,
  startRuntime,
  type Daemon,
  type Runtime,
} from '../../devkit/daemon.js';
import { call, closeHttp } from '../../devkit/http.js';
import { PG_PASSWORD, freshDatabase } from '../../devkit/pg.js';
import { sleep } from '../../devkit/wait.js';

/**
 * Many daemons, one team: real daemons (spawned CLI, separate homes) on one
 * real PostgreSQL database, each with its own runtime credential.
 */
test.after(() => closeHttp());

const ok = (r: { status: number; text: string; json: any }) => {
  assert.equal(r.status, 200, r.text);
  return r.json.data;
};
const ENCODED = encodeURIComponent(PG_PASSWORD);

function assertNoPassword(text: string, where: string): void {
  assert.ok(
    !text.includes(PG_PASSWORD) && !text.includes(ENCODED),
    `${where} carries the database password`,
  );
}

async function history(d: Daemon, target: string): Promise<{ id: string; content: string }[]> {
  const r = await cli(d.home, [
    'message',
    'history',
    '--server',
    's1',
    '--target',
    target,
    '--limit',
    '50',
  ]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).data.messages;
}

async function pair(t: {
  after(fn: () => Promise<void>): void;
}): Promise<{ url: string; a: Daemon; b: Daemon; ra: Runtime; rb: Runtime }> {
  const url = await freshDatabase();
  // One through the flag, one through the environment variable.
  const a = await startDaemon({ args: ['--store', url] });
  t.after(() => a.close());
  const b = await startDaemon({ env: { AGENTTEAM_STORE_URL: url } });
  t.after(() => b.close());
  const ra = await startRuntime(a, { server: 's1', agent: 'a1' });
  t.after(() => ra.close());
  const rb = await startRuntime(b, { server: 's1', agent: 'a1' });
  t.after(() => rb.close());
  return { url, a, b, ra, rb };
}

test('two daemons on one database: tasks, revisions, one idempotency key, messages, a 2 s schedule, paging under writes', async (t) => {
  const { a, b, ra, rb } = await pair(t);

  // A task created through one is read, listed and updated through the other.
  const task = ok(
    await call(ra, 'task', 'create', { title: 'shared \u0000 😀', description: 'from A' }),
  ).task;
  assert.deepEqual(ok(await call(rb, 'task', 'get', { id: task.id })).task, task);
  assert.ok(
    ok(await call(rb, 'task', 'list', {})).tasks.some((x: { id: string }) => x.id === task.id),
  );
  const updated = ok(
    await call(rb, 'task', 'update', { id: task.id, status: 'in_progress', expectedRevision: 1 }),
  ).task;
  assert.equal(updated.revision, 2);
  // A stale expectedRevision from the first is a conflict.
  const stale = await call(ra, 'task', 'update', {
    id: task.id,
    title: 'late',
    expectedRevision: 1,
  });
  assert.equal(stale.status, 409, stale.text);
  assert.equal(stale.json.error.code, 'revision_conflict');

  // Ten concurrent creates with one idempotency key through both give one task.
  const racers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      call(i % 2 ? ra : rb, 'task', 'create', {
        title: 'exactly once',
        idempotencyKey: 'deploy-42',
      }),
    ),
  );
  assert.equal(new Set(racers.map((r) => ok(r).task.id)).size, 1);
  const all: { title: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = ok(await call(ra, 'task', 'list', { limit: 100, ...(cursor ? { cursor } : {}) }));
    all.push(...page.tasks);
    cursor = page.nextCursor;
  } while (cursor);
  assert.equal(all.filter((x) => x.title === 'exactly once').length, 1);

  // A message posted through one is in the history read through the other.
  const posted = await cli(a.home, [
    'message',
    'post',
    '--server',
    's1',
    '--target',
    'channel:team',
    '--as',
    'human:ana',
    'hello from A',
  ]);
  assert.equal(posted.code, 0, posted.stderr);
  assert.deepEqual(
    (await history(b, 'channel:team')).map((m) => m.content),
    ['hello from A'],
  );

  // A schedule due in 2 s is delivered exactly once (both daemons look for due work).
  const s = ok(
    await call(rb, 'scheduled-message', 'create', {
      target: 'channel:ops',
      content: 'standup',
      at: new Date(Date.now() + 2000).toISOString(),
    }),
  ).scheduledMessage;
  let seen: { content: string }[] = [];
  for (let i = 0; i < 60 && seen.length === 0; i++, await sleep(100))
    seen = await history(a, 'channel:ops');
  await sleep(2500); // both daemons have polled at least twice since
  assert.deepEqual(
    (await history(a, 'channel:ops')).map((m) => m.content),
    ['standup'],
  );
  const runs = ok(await call(ra, 'scheduled-message', 'runs', { id: s.id })).runs;
  assert.deepEqual(
    runs.map((r: { outcome: string }) => r.outcome),
    ['delivered'],
  );

  // Paging 150 tasks through one while the other writes gives no duplicate.
  for (let i = 0; i < 150; i++) ok(await call(ra, 'task', 'create', { title: `bulk ${i}` }));
  const writer = (async () => {
    for (let i = 0; i < 40; i++) {
      ok(await call(rb, 'task', 'create', { title: `during ${i}` }));
      await sleep(5);
    }
  })();
  const ids: string[] = [];
  cursor = undefined;
  do {
    const page = ok(await call(ra, 'task', 'list', { limit: 10, ...(cursor ? { cursor } : {}) }));
    ids.push(...page.tasks.map((x: { id: string }) => x.id));
    cursor = page.nextCursor;
    await sleep(3);
  } while (cursor);
  await writer;
  assert.equal(new Set(ids).size, ids.length, 'no task twice');
  assert.ok(ids.length >= 150, `${ids.length} tasks paged`);
});

test('status names the store kind and host; the password is in no status, log, command line, runtime environment or error', async (t) => {
  const { url, a, b, ra } = await pair(t);
  // The password is a secret of the result gate too: a result that quotes it shows its name instead.
  const quoted = await call(ra, 'task', 'create', { title: `the password is ${PG_PASSWORD}` });
  assertNoPassword(quoted.text, 'a result');
  assert.match(ok(quoted).task.title, /\[AGENTTEAM_STORE_PASSWORD\]/);
  const status = await cli(a.home, ['daemon', 'status']);
  assert.equal(status.code, 0, status.stderr);
  const store = JSON.parse(status.stdout).data.store;
  const u = new URL(url);
  assert.deepEqual([store.kind, store.location], ['postgres', `127.0.0.1:${u.port}${u.pathname}`]);
  assert.ok(store.transactions >= 1, 'counts committed transactions');
  assert.deepEqual([typeof store.retries, store.busy], ['number', 0]);
  assertNoPassword(status.stdout, 'status');
  for (const d of [a, b]) {
    assertNoPassword(readFileSync(`/proc/${d.pid}/cmdline`, 'utf8'), 'the daemon command line');
    // Agents run as the same user and could read the daemon's initial environment: it never held the URL.
    assertNoPassword(readFileSync(`/proc/${d.pid}/environ`, 'utf8'), 'the daemon environment');
    const log = join(d.home, 'daemon.log');
    if (existsSync(log)) assertNoPassword(readFileSync(log, 'utf8'), 'daemon.log');
  }
  // A runtime started from a shell that has the URL does not inherit it.
  const proc = spawn(
    process.execPath,
    [
      BIN,
      'run',
      '--server',
      's1',
      '--agent',
      'a9',
      '--',
      process.execPath,
      '-e',
      'process.stdout.write(JSON.stringify(process.env)+"\\n");setInterval(()=>{},1e6)',
    ],
    {
      env: { ...process.env, AGENTTEAM_HOME: a.home, AGENTTEAM_STORE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(() => void proc.kill('SIGTERM'));
  const env = await firstLine(proc);
  assert.ok(!env.includes('AGENTTEAM_STORE_URL'));
  assertNoPassword(env, 'the runtime environment');
  // store backup has nothing to copy and says what to use instead.
  const backup = await cli(a.home, ['store', 'backup', join(tmpdir(), 'never.db')]);
  assert.notEqual(backup.code, 0);
  assert.match(backup.stderr, /PostgreSQL at 127\.0\.0\.1:\d+\/\w+; back it up with pg_dump/);
  // An unreachable database: the daemon does not start, and says where, not with what password.
  const home = mkdtempSync(join(tmpdir(), 'agentteam-pg-down-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const down = await cli(home, [
    'daemon',
    'start',
    '--store',
    `postgres://agentteam:${ENCODED}@127.0.0.1:1/nowhere`,
  ]);
  assert.notEqual(down.code, 0);
  assert.match(down.stderr, /127\.0\.0\.1:1\/nowhere/);
  assertNoPassword(down.stdout + down.stderr, 'the start-up error');
  const bad = await cli(home, [
    'daemon',
    'start',
    '--store',
    `mysql://agentteam:${ENCODED}@127.0.0.1/x`,
  ]);
  assert.equal(bad.code, 2);
  assertNoPassword(bad.stderr, 'the URL error');
});

test('a daemon killed with -9 while it holds a due schedule: the other daemon delivers it, once', async (t) => {
  const url = await freshDatabase();
  // C holds every delivery's transaction open for 30 s before committing: long enough to be killed inside it.
  const c = await startDaemon({
    args: ['--store', url],
    env: { AGENTTEAM_FAULT_HOLD_DELIVERY_MS: '30000' },
  });
  t.after(() => c.close());
  const rc = await startRuntime(c, { server: 's1', agent: 'a1' });
  t.after(() => rc.close());
  const s = ok(
    await call(rc, 'scheduled-message', 'create', {
      target: 'channel:ops',
      content: 'survives',
      at: new Date(Date.now() + 1000).toISOString(),
    }),
  ).scheduledMessage;
  const db = new pg.Pool({ connectionString: url, max: 1 });
  db.on('error', () => undefined); // its idle connection may outlive the test until the cluster stops
  t.after(() => db.end());
  // Wait until C is inside the delivery transaction (its connection idles in it, holding the row).
  let holding = false;
  for (let i = 0; i < 100 && !holding; i++, await sleep(100)) {
    const r = await db.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'",
    );
    holding = r.rows[0].n > 0;
  }
  assert.ok(holding, 'daemon C is holding the delivery open');
  assert.equal(
    (await db.query('SELECT count(*)::int AS n FROM messages')).rows[0].n,
    0,
    'nothing committed yet',
  );
  const d = await startDaemon({ args: ['--store', url] });
  t.after(() => d.close());
  c.kill9();
  let seen: { content: string }[] = [];
  for (let i = 0; i < 100 && seen.length === 0; i++, await sleep(100))
    seen = await history(d, 'channel:ops');
  assert.deepEqual(
    seen.map((m) => m.content),
    ['survives'],
  );
  await sleep(2500);
  assert.equal((await history(d, 'channel:ops')).length, 1, 'delivered once');
  const rd = await startRuntime(d, { server: 's1', agent: 'a1' });
  t.after(() => rd.close());
  const runs = ok(await call(rd, 'scheduled-message', 'runs', { id: s.id })).runs;
  assert.deepEqual(
    runs.map((r: { outcome: string }) => r.outcome),
    ['delivered'],
  );
});
