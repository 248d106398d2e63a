import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_MIGRATIONS } from '../../daemon/domains/list.js';
import { openDb } from '../../daemon/store/db.js';
import { runMigrations } from '../../daemon/store/migrations.js';
import { BACKENDS, type Case } from '../../devkit/store-contract.js';

/*
 * The store contract (devkit/store-contract.ts), conversations: what one
 * daemon writes, the other lists, with the same unread counts, read marks and
 * cursors, on SQLite and on PostgreSQL alike.
 */

const S = 'local';

const CASES: Case[] = [
  {
    name: "conversations: most recent first with a person's unread counts; marks and cursors hold across daemons",
    async run({ a, b, advance }) {
      const send = (target: string, author: string, content: string) =>
        a.services.messages.send({ serverId: S, target, author, content });
      await send('channel:c', 'human:bob', 'one');
      advance(1);
      const two = await send('channel:c', 'agent:x1', 'two');
      advance(1);
      await send('channel:c', 'human:ada', 'mine');
      advance(1);
      await b.services.messages.send({
        serverId: S,
        target: 'dm:x1',
        author: 'agent:x1',
        content: 'hi',
      });
      const list = (person: string, cursor?: string, limit = 10) =>
        b.services.conversations.list({ serverId: S, person, limit, cursor });
      const all = await list('human:ada');
      assert.deepEqual(
        all.items.map((c) => [c.target, c.unread, c.lastAuthor]),
        [
          ['dm:x1', 1, 'agent:x1'],
          ['channel:c', 2, 'human:ada'],
        ],
      );
      // Ada has read up to `two`: only what came after it and is not hers is unread.
      const marked = await a.services.conversations.markRead({
        serverId: S,
        person: 'human:ada',
        target: 'channel:c',
        upTo: two.id,
      });
      assert.deepEqual(marked, { target: 'channel:c', unread: 0 });
      // A mark never moves back.
      const first = (
        await a.services.messages.history({ serverId: S, target: 'channel:c', limit: 50 })
      ).messages.at(-1)!;
      await b.services.conversations.markRead({
        serverId: S,
        person: 'human:ada',
        target: 'channel:c',
        upTo: first.id,
      });
      advance(1);
      await send('channel:c', 'human:bob', 'three');
      const after = await list('human:ada');
      assert.deepEqual(
        after.items.map((c) => [c.target, c.unread]),
        [
          ['channel:c', 1],
          ['dm:x1', 1],
        ],
      );
      // Another person's counts are theirs.
      assert.deepEqual(
        (await list('human:bob')).items.map((c) => c.unread),
        [2, 1],
      );
      // A page's cursor, issued by one daemon, continues on the other; it stays bound to its person.
      const one = await a.services.conversations.list({
        serverId: S,
        person: 'human:ada',
        limit: 1,
      });
      assert.equal(one.hasMore, true);
      const next = await list('human:ada', one.nextCursor);
      assert.deepEqual(
        next.items.map((c) => c.target),
        ['dm:x1'],
      );
      await assert.rejects(list('human:bob', one.nextCursor), /cursor/);
      // Counting stops at 100.
      for (let i = 0; i < 101; i++) await send('channel:big', 'human:bob', `m${i}`);
      const big = (await list('human:ada')).items.find((c) => c.target === 'channel:big');
      assert.equal(big?.unread, 100);
    },
  },
];

for (const backend of BACKENDS) {
  for (const c of CASES) {
    test(`[${backend.name}] ${c.name}`, async (t) => {
      await c.run(await backend.pair(t));
    });
  }
}

test('a store made before conversations were kept lists the conversations it already holds', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-convo-migrate-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const before = STORE_MIGRATIONS.filter((m) => m.id !== '010_conversations');
  assert.equal(before.length, STORE_MIGRATIONS.length - 1);
  const db = openDb(join(dir, 'store.db'), before);
  const put = db.prepare(
    'INSERT INTO messages (id, server_id, target, author, content, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  put.run('msg_aaaaaa1', S, 'channel:c', 'human:bob', 'one', 1);
  put.run('msg_aaaaaa2', S, 'dm:x1', 'agent:x1', 'two', 2);
  put.run('msg_aaaaaa3', S, 'channel:c', 'agent:x1', 'three', 3);
  assert.deepEqual(runMigrations(db, STORE_MIGRATIONS), ['010_conversations']);
  assert.deepEqual(
    db
      .prepare('SELECT target, last_at, last_author FROM conversations ORDER BY last_seq DESC')
      .all(),
    [
      { target: 'channel:c', last_at: 3, last_author: 'agent:x1' },
      { target: 'dm:x1', last_at: 2, last_author: 'agent:x1' },
    ],
  );
  db.close();
});
