import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../daemon/store/db.js';
import { TeamServer } from '../../daemon/store/team-server.js';
import { SqliteSql } from '../../daemon/store/sqlite-sql.js';
import { ReadCache } from '../../daemon/store/read-cache.js';
import type { SqlStore } from '../../daemon/store/sql.js';
import { FakeClock } from '../../devkit/auth-clock.js';
import { taskCreate, taskGet, taskUpdate } from '../../catalog/domains/task.js';
import { STORE_DOMAINS, STORE_MIGRATIONS } from '../../daemon/domains/list.js';

async function tempStore(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-cache-'));
  const path = join(dir, 'store.db');
  const db = openDb(path, STORE_MIGRATIONS);
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const sql = new SqliteSql(db, ':memory:');
  const server = await TeamServer.open(sql, () => (clock += 1), STORE_DOMAINS);
  const other = openDb(path, STORE_MIGRATIONS); // another connection: a second process writing the same file
  t.after(() => {
    other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, sql, other, server };
}

test('task get never serves a stale task: own writes, writes by another connection, writes to other tables', async (t) => {
  const { db, other, server } = await tempStore(t);
  const api = server.forCaller({ serverId: 's1', agentId: 'a1' });
  const { task } = await api.call(taskCreate, { title: 'x' });
  assert.deepEqual((await api.call(taskGet, { id: task.id })).task, task);
  assert.deepEqual(
    (await api.call(taskGet, { id: task.id })).task,
    task,
    'a repeated read is the same task',
  );

  const upd = await api.call(taskUpdate, { id: task.id, title: 'y' });
  assert.equal((await api.call(taskGet, { id: task.id })).task.title, 'y');
  assert.equal((await api.call(taskGet, { id: task.id })).task.revision, upd.task.revision);

  other
    .prepare("UPDATE tasks SET title = 'from elsewhere', revision = revision + 1 WHERE id = ?")
    .run(task.id);
  const seen = (await api.call(taskGet, { id: task.id })).task;
  assert.equal(seen.title, 'from elsewhere');
  assert.equal(seen.revision, upd.task.revision + 1);

  // A write this connection makes outside the task store (any table) is seen too.
  db.prepare("UPDATE tasks SET status = 'done' WHERE id = ?").run(task.id);
  assert.equal((await api.call(taskGet, { id: task.id })).task.status, 'done');

  // Another server never gets a cached task of this one.
  await assert.rejects(
    server.forCaller({ serverId: 's2', agentId: 'a1' }).call(taskGet, { id: task.id }),
    /not found/,
  );
});

test('nothing is cached while a transaction is open; a transaction that rolls back leaves no trace; cached values are frozen', async (t) => {
  const { sql, server } = await tempStore(t);
  const api = server.forCaller({ serverId: 's1', agentId: 'a1' });
  const { task } = await api.call(taskCreate, { title: 'x' });
  assert.equal((await api.call(taskGet, { id: task.id })).task.title, 'x'); // cached now
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const tx = sql.tx(async (q) => {
    await q.run("UPDATE tasks SET title = 'uncommitted' WHERE id = ?", [task.id]);
    opened();
    await held;
    throw new Error('roll back');
  });
  await open;
  // The transaction holds the store: a read waits for it and never sees, nor caches, its rows.
  const during = api.call(taskGet, { id: task.id });
  release();
  await assert.rejects(tx, /roll back/);
  assert.equal((await during).task.title, 'x');
  const after = (await api.call(taskGet, { id: task.id })).task;
  assert.equal(after.title, 'x');
  assert.throws(() => {
    (after as { title: string }).title = 'changed';
  }, TypeError);
});

test('ReadCache: a read that a write overtakes is not kept; no cache while the counter is null', async (t) => {
  const { db, sql } = await tempStore(t);
  const cache = new ReadCache<{ v: number }>(sql, 8);
  assert.equal(cache.get('a'), undefined);
  db.prepare("INSERT INTO meta (key, value) VALUES ('probe1', 'x')").run(); // lands between the miss and the set
  cache.set('a', { v: 1 });
  assert.equal(cache.get('a'), undefined, 'a value read before a write is not cached');
  cache.set('a', { v: 2 });
  assert.equal(cache.get('a')?.v, 2);
  let inside: { v: number } | undefined | 'unset' = 'unset';
  await sql.tx(async (q) => {
    await q.run("INSERT INTO meta (key, value) VALUES ('probe2', 'x')");
    inside = cache.get('a');
    cache.set('a', { v: 3 });
  });
  assert.equal(inside, undefined, 'nothing is served while a transaction is open');
  assert.equal(cache.get('a'), undefined, 'the committed transaction emptied it');
  const shared = { changeCounter: () => null } as unknown as SqlStore; // a shared database: the driver cannot tell
  const none = new ReadCache<{ v: number }>(shared);
  assert.equal(none.get('a'), undefined);
  none.set('a', { v: 1 });
  assert.equal(none.get('a'), undefined);
});

test('ReadCache: bounded, empties on any change, set without a preceding get is ignored', async (t) => {
  const { db, sql } = await tempStore(t);
  const cache = new ReadCache<{ v: number }>(sql, 2);
  assert.equal(cache.get('a'), undefined);
  cache.set('a', { v: 1 });
  assert.equal(cache.get('a')?.v, 1);
  cache.set('b', { v: 2 }); // ignored: the previous get was a hit, not a miss for 'b'
  assert.equal(cache.get('b'), undefined);
  cache.set('b', { v: 2 });
  assert.equal(cache.get('c'), undefined);
  cache.set('c', { v: 3 }); // full: starts over
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.get('c')?.v, 3);
  db.prepare("INSERT INTO meta (key, value) VALUES ('probe', 'x')").run();
  assert.equal(cache.get('c'), undefined, 'a write to any table empties it');
});

test('message history: every first page read through the cache equals a fresh read, whatever the sends and reads in between (property)', async (t) => {
  const fc = (await import('fast-check')).default;
  const { MessageStore } = await import('../../daemon/store/messages.js');
  const { sql } = await tempStore(t);
  const clock = new FakeClock();
  const cached = new MessageStore(sql, clock);
  const step = fc.oneof(
    fc.record({
      kind: fc.constant('send' as const),
      target: fc.constantFrom('channel:a', 'channel:b'),
      content: fc.string({ maxLength: 8 }),
    }),
    fc.record({
      kind: fc.constant('read' as const),
      target: fc.constantFrom('channel:a', 'channel:b'),
      limit: fc.integer({ min: 1, max: 4 }),
    }),
    fc.record({
      kind: fc.constant('tx' as const),
      target: fc.constantFrom('channel:a', 'channel:b'),
      content: fc.string({ maxLength: 8 }),
    }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
      for (const s of steps) {
        if (s.kind === 'send')
          await cached.send({ serverId: 's1', target: s.target, author: 'a1', content: s.content });
        else if (s.kind === 'tx') {
          // A send inside a transaction that also reads: nothing read there may be kept.
          await sql.tx(async (q) => {
            await cached.send(
              { serverId: 's1', target: s.target, author: 'a1', content: s.content },
              q,
            );
          });
        } else {
          const fresh = await new MessageStore(sql, clock).history({
            serverId: 's1',
            target: s.target,
            limit: s.limit,
          });
          assert.deepEqual(
            await cached.history({ serverId: 's1', target: s.target, limit: s.limit }),
            fresh,
          );
        }
      }
    }),
    { numRuns: 60 },
  );
});
