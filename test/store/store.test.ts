import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../daemon/store/db.js';
import { runMigrations, type Migration } from '../../daemon/store/migrations.js';
import { TeamServer } from '../../daemon/store/team-server.js';
import { SqliteSql } from '../../daemon/store/sqlite-sql.js';
import { ExecError } from '../../daemon/errors/exec-error.js';
import { ID_PATTERN } from '../../catalog/common.js';
import { projectCreate, projectList } from '../../catalog/domains/project.js';
import { reviewAdd, reviewList } from '../../catalog/domains/review.js';
import { taskCreate, taskGet, taskList, taskUpdate } from '../../catalog/domains/task.js';
import { STORE_DOMAINS, STORE_MIGRATIONS } from '../../daemon/domains/list.js';

async function tempStore(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-store-'));
  const db = openDb(join(dir, 'store.db'), STORE_MIGRATIONS);
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const tick = () => (clock += 1);
  const server = await TeamServer.open(new SqliteSql(db, ':memory:'), tick, STORE_DOMAINS);
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, db, server };
}

async function rejects(p: Promise<unknown>, code: string, path?: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ExecError, `expected ExecError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (path !== undefined) assert.equal(err.extra.details?.[0]?.path, path);
    return true;
  });
}

test('pragmas: WAL, synchronous FULL, foreign keys; migrations recorded once', async (t) => {
  const { db, dir } = await tempStore(t);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('synchronous', { simple: true }), 2);
  assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
  const ids = (db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map(
    (r) => r.id,
  );
  assert.ok(ids.includes('001_core'));
  // Re-opening applies nothing new.
  const again = openDb(join(dir, 'store.db'), STORE_MIGRATIONS);
  assert.deepEqual(runMigrations(again, []), []);
  again.close();
});

test('a failing migration rolls back with its record; a duplicate id is refused', async (t) => {
  const { db } = await tempStore(t);
  const bad: Migration = {
    id: '900_bad',
    up: (d) => {
      d.exec('CREATE TABLE half (x INTEGER)');
      throw new Error('boom');
    },
  };
  assert.throws(() => runMigrations(db, [bad]), /boom/);
  assert.equal(
    (
      db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get() as {
        n: number;
      }
    ).n,
    0,
  );
  assert.equal(
    (
      db.prepare("SELECT count(*) AS n FROM schema_migrations WHERE id = '900_bad'").get() as {
        n: number;
      }
    ).n,
    0,
  );
  const m: Migration = { id: 'x', up: () => {} };
  assert.throws(() => runMigrations(db, [m, m]), /twice/);
});

test('task create/get/update with revisions and conflicts', async (t) => {
  const { server } = await tempStore(t);
  const api = server.forCaller({ serverId: 's1', agentId: 'a1' });
  const { task } = await api.call(taskCreate, { title: 'x' });
  assert.match(task.id, new RegExp(ID_PATTERN));
  assert.equal(task.status, 'todo');
  assert.equal(task.revision, 1);
  const upd = await api.call(taskUpdate, {
    id: task.id,
    status: 'done',
    assignee: 'a2',
    expectedRevision: 1,
  });
  assert.equal(upd.task.revision, 2);
  assert.equal(upd.task.assignee, 'a2');
  await rejects(
    api.call(taskUpdate, { id: task.id, title: 'y', expectedRevision: 1 }),
    'revision_conflict',
  );
  await rejects(api.call(taskUpdate, { id: task.id }), 'validation_failed', '');
  const cleared = await api.call(taskUpdate, { id: task.id, assignee: null });
  assert.equal(cleared.task.assignee, null);
  await rejects(api.call(taskGet, { id: 'task_doesnotexist' }), 'not_found');
  // Another server does not see the task.
  await rejects(
    server.forCaller({ serverId: 's2', agentId: 'a1' }).call(taskGet, { id: task.id }),
    'not_found',
  );
  await rejects(api.call(taskCreate, { title: 'y', projectId: 'project_nothere' }), 'not_found');
});

test('idempotency: replay, conflict, scope per agent and action', async (t) => {
  const { server, db } = await tempStore(t);
  const a1 = server.forCaller({ serverId: 's1', agentId: 'a1' });
  const first = await a1.call(taskCreate, { title: 'x', idempotencyKey: 'k1' });
  const again = await a1.call(taskCreate, { title: 'x', idempotencyKey: 'k1' });
  assert.deepEqual(again, first);
  await rejects(
    a1.call(taskCreate, { title: 'other', idempotencyKey: 'k1' }),
    'idempotency_conflict',
  );
  const a2 = await server
    .forCaller({ serverId: 's1', agentId: 'a2' })
    .call(taskCreate, { title: 'x', idempotencyKey: 'k1' });
  assert.notEqual(a2.task.id, first.task.id);
  const count = (db.prepare('SELECT count(*) AS n FROM tasks').get() as { n: number }).n;
  assert.equal(count, 2);
  const results = await Promise.all(
    Array.from({ length: 50 }, () => a1.call(projectCreate, { name: 'p', idempotencyKey: 'same' })),
  );
  assert.equal(new Set(results.map((r) => JSON.stringify(r))).size, 1);
  assert.equal((db.prepare('SELECT count(*) AS n FROM projects').get() as { n: number }).n, 1);
});

test('task list: keyset order, filters, tampered/foreign/mismatched cursors', async (t) => {
  const { server } = await tempStore(t);
  const api = server.forCaller({ serverId: 's1', agentId: 'a1' });
  for (let i = 0; i < 45; i++)
    await api.call(taskCreate, { title: `t${i}`, status: i % 3 === 0 ? 'done' : 'todo' });
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await api.call(taskList, { limit: 10, ...(cursor ? { cursor } : {}) });
    seen.push(...page.tasks.map((x) => x.id));
    assert.equal(page.hasMore, page.nextCursor !== undefined);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(pages, 5);
  assert.equal(new Set(seen).size, 45);
  const first = await api.call(taskList, { status: 'done', limit: 5 });
  assert.ok(first.tasks.every((x) => x.status === 'done'));
  const c = first.nextCursor!;
  await rejects(
    api.call(taskList, { status: 'todo', limit: 5, cursor: c }),
    'validation_failed',
    '/cursor',
  );
  await rejects(
    api.call(taskList, {
      status: 'done',
      limit: 5,
      cursor: c.slice(0, -2) + (c.endsWith('A') ? 'BB' : 'AA'),
    }),
    'validation_failed',
    '/cursor',
  );
  await rejects(
    api.call(taskList, { status: 'done', limit: 5, cursor: 'garbage' }),
    'validation_failed',
    '/cursor',
  );
  await rejects(api.call(projectList, { limit: 5, cursor: c }), 'validation_failed', '/cursor');
  await rejects(
    server
      .forCaller({ serverId: 's2', agentId: 'a1' })
      .call(taskList, { status: 'done', limit: 5, cursor: c }),
    'validation_failed',
    '/cursor',
  );
  const ok = await api.call(taskList, { status: 'done', limit: 5, cursor: c });
  assert.ok(ok.tasks.length > 0);
  const last = await api.call(taskList, { limit: 100 });
  assert.equal(last.hasMore, false);
  assert.equal('nextCursor' in last, false);
});

test('reviews: thread per task, newest first, author is the caller', async (t) => {
  const { server } = await tempStore(t);
  const api = server.forCaller({ serverId: 's1', agentId: 'rev' });
  const { task } = await api.call(taskCreate, { title: 'x' });
  for (let i = 0; i < 5; i++)
    await api.call(reviewAdd, { taskId: task.id, verdict: 'comment', body: `r${i}` });
  const p1 = await api.call(reviewList, { taskId: task.id, limit: 3 });
  assert.deepEqual(
    p1.reviews.map((r) => r.body),
    ['r4', 'r3', 'r2'],
  );
  assert.equal(p1.reviews[0]!.author, 'rev');
  const p2 = await api.call(reviewList, { taskId: task.id, limit: 3, cursor: p1.nextCursor! });
  assert.deepEqual(
    p2.reviews.map((r) => r.body),
    ['r1', 'r0'],
  );
  const other = await api.call(taskCreate, { title: 'y' });
  await rejects(
    api.call(reviewList, { taskId: other.task.id, limit: 3, cursor: p1.nextCursor! }),
    'validation_failed',
    '/cursor',
  );
  await rejects(
    api.call(reviewAdd, { taskId: 'task_missing1', verdict: 'approve', body: 'x' }),
    'not_found',
  );
});
