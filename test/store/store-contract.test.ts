import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { AWKWARD, BACKENDS, code, ok, type Case } from '../../devkit/store-contract.js';

/* The store contract (devkit/store-contract.ts), part one: tasks across two daemons: byte-exact strings, revisions, idempotency, paging and cursors. */

const CASES: Case[] = [
  {
    name: 'a task created through one daemon is read, listed and updated through the other, strings byte-exact',
    async run({ callA, callB }) {
      for (const s of AWKWARD) {
        const task = ok(await callA('task', 'create', { title: s, description: s })).task;
        const read = ok(await callB('task', 'get', { id: task.id })).task;
        assert.deepEqual(read, task);
        assert.equal(read.title, s);
      }
      const listed = ok(await callB('task', 'list', { limit: 100 })).tasks;
      assert.deepEqual(listed.map((t: { title: string }) => t.title).sort(), [...AWKWARD].sort());
      const first = listed[0];
      const upd = ok(
        await callB('task', 'update', {
          id: first.id,
          status: 'in_progress',
          expectedRevision: first.revision,
        }),
      ).task;
      assert.deepEqual([upd.status, upd.revision], ['in_progress', first.revision + 1]);
      assert.deepEqual(ok(await callA('task', 'get', { id: first.id })).task, upd);
    },
  },
  {
    name: 'a stale expectedRevision is a conflict on either daemon; concurrent updates at one revision: exactly one wins',
    async run({ callA, callB }) {
      const task = ok(await callA('task', 'create', { title: 'r' })).task;
      ok(await callA('task', 'update', { id: task.id, title: 'r2', expectedRevision: 1 }));
      const stale = await callB('task', 'update', {
        id: task.id,
        title: 'r3',
        expectedRevision: 1,
      });
      assert.equal(stale.status, 409);
      assert.equal(code(stale), 'revision_conflict');
      const racers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 ? callA : callB)('task', 'update', {
            id: task.id,
            title: `race ${i}`,
            expectedRevision: 2,
          }),
        ),
      );
      assert.deepEqual(
        racers.map((r) => r.status).sort(),
        [200, 409, 409, 409, 409, 409, 409, 409],
      );
      assert.equal(ok(await callB('task', 'get', { id: task.id })).task.revision, 3);
    },
  },
  {
    name: 'an idempotency key is scoped to its agent: ten concurrent creates from two agents give one task each; another body is a conflict',
    async run({ a, callA }) {
      const callA2 = await a.runtime('s1', 'a2');
      const bodies = Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? callA : callA2)('task', 'create', { title: 'once', idempotencyKey: 'k-1' }),
      );
      const results = await Promise.all(bodies);
      const byAgent = new Map<string, Set<string>>();
      results.forEach((r, i) => {
        const agent = i % 2 ? 'a1' : 'a2';
        const set = byAgent.get(agent) ?? new Set();
        set.add(ok(r).task.id);
        byAgent.set(agent, set);
      });
      assert.deepEqual(
        [...byAgent.values()].map((s) => s.size),
        [1, 1],
        'one task per agent scope',
      );
      const again = await callA('task', 'create', { title: 'different', idempotencyKey: 'k-1' });
      assert.equal(code(again), 'idempotency_conflict');
    },
  },
  {
    name: 'one idempotency key, one agent, two daemons at once: one effect',
    async run({ a, b }) {
      const [x, y] = [await a.runtime('s1', 'same'), await b.runtime('s1', 'same')];
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? x : y)('task', 'create', { title: 'once', idempotencyKey: 'shared' }),
        ),
      );
      const ids = new Set(results.map((r) => ok(r).task.id));
      assert.equal(ids.size, 1);
      const all = ok(await x('task', 'list', { limit: 100 })).tasks.filter(
        (t: { title: string }) => t.title === 'once',
      );
      assert.equal(all.length, 1);
    },
  },
  {
    name: 'paging 150 tasks through one daemon while the other writes: no duplicate, every untouched task seen once',
    async run({ callA, callB, advance }) {
      const ids: string[] = [];
      for (let i = 0; i < 150; i++) {
        ids.push(ok(await callA('task', 'create', { title: `t${i}` })).task.id);
        advance(1);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      let writes = 0;
      do {
        const page = ok(await callB('task', 'list', { limit: 17, ...(cursor ? { cursor } : {}) }));
        seen.push(...page.tasks.map((t: { id: string }) => t.id));
        cursor = page.nextCursor;
        // The other daemon creates one task and updates one already paged (it moves to the front).
        ok(await callA('task', 'create', { title: `new ${writes}` }));
        ok(await callA('task', 'update', { id: seen[writes]!, status: 'in_progress' }));
        writes++;
        advance(1);
      } while (cursor);
      assert.equal(new Set(seen).size, seen.length, 'no duplicate');
      const untouched = ids.filter((id) => !seen.slice(0, writes).includes(id));
      for (const id of untouched) assert.ok(seen.includes(id), `${id} seen`);
    },
  },
  {
    name: 'a cursor made by one daemon continues on the other; a tampered one is refused the same way',
    async run({ callA, callB }) {
      for (let i = 0; i < 5; i++) ok(await callA('project', 'create', { name: `p${i}` }));
      const first = ok(await callA('project', 'list', { limit: 2 }));
      const second = ok(await callB('project', 'list', { limit: 2, cursor: first.nextCursor }));
      assert.equal(second.projects.length, 2);
      assert.ok(
        !second.projects.some((p: { id: string }) =>
          first.projects.some((q: { id: string }) => q.id === p.id),
        ),
      );
      const bad = await callB('project', 'list', {
        limit: 2,
        cursor: `${first.nextCursor.slice(0, -2)}AA`,
      });
      assert.deepEqual([bad.status, code(bad)], [400, 'validation_failed']);
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
