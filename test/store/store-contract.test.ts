import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import type { TestContext } from 'node:test';
import { startInProc, type Caller, type InProc } from '../../devkit/inproc.js';
import { freshDatabase } from '../../devkit/pg.js';

/**
 * The store contract: one case table, run unchanged against the embedded
 * SQLite store and a real PostgreSQL. Every case gets two daemons' worth of
 * services (A and B, each with its own app, credentials and clock) on one
 * store — the same file for SQLite, the same database for PostgreSQL — and
 * talks to them through the Exec route, so what is compared is what a
 * runtime sees: envelopes, error codes, cursors, revisions.
 */
interface Pair {
  readonly a: InProc;
  readonly b: InProc;
  readonly callA: Caller;
  readonly callB: Caller;
  /** Moves both daemons' clocks (each has its own fake clock). */
  advance(ms: number): void;
}

interface Backend {
  readonly name: string;
  pair(t: TestContext): Promise<Pair>;
}

async function pairOn(t: TestContext, store: string | undefined): Promise<Pair> {
  const a = await startInProc(t, store ? { store } : {});
  // SQLite: B opens the same store file (its own connection); PostgreSQL: the same database.
  const b = await startInProc(t, store ? { store } : { shareStoreOf: a });
  return {
    a,
    b,
    callA: await a.runtime(),
    callB: await b.runtime('s1', 'a2'),
    advance(ms) {
      a.clock.advance(ms);
      b.clock.advance(ms);
    },
  };
}

const BACKENDS: Backend[] = [
  { name: 'sqlite', pair: (t) => pairOn(t, undefined) },
  { name: 'postgres', pair: async (t) => pairOn(t, await freshDatabase()) },
];

const ok = (r: { status: number; json: any }) => {
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json.data;
};
const code = (r: { status: number; json: any }) => r.json?.error?.code as string | undefined;

/** Strings a store must keep exactly: NUL and the escape it uses, astral characters, JSON metacharacters. */
const AWKWARD = [
  'nul\u0000inside',
  'esc\u0001\u0002seq',
  '😀 astral 𝄞',
  'quote " backslash \\ newline \n tab \t',
  'ünïcödé',
  '\u0001',
];

interface Case {
  readonly name: string;
  run(p: Pair): Promise<void>;
}

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
  {
    name: 'projects and reviews: created on one daemon, found on the other; unknown references are not_found',
    async run({ callA, callB }) {
      const project = ok(
        await callA('project', 'create', { name: 'Apollo', description: 'moon\u0000shot' }),
      ).project;
      assert.deepEqual(ok(await callB('project', 'get', { id: project.id })).project, project);
      const task = ok(
        await callB('task', 'create', { title: 'in project', projectId: project.id }),
      ).task;
      assert.equal(
        code(await callA('task', 'create', { title: 'x', projectId: 'project_nope000' })),
        'not_found',
      );
      const review = ok(
        await callA('review', 'add', { taskId: task.id, verdict: 'comment', body: 'looks 😀' }),
      ).review;
      assert.deepEqual(ok(await callB('review', 'list', { taskId: task.id })).reviews, [review]);
      assert.equal(
        code(
          await callB('review', 'add', { taskId: 'task_nope000', verdict: 'comment', body: 'x' }),
        ),
        'not_found',
      );
    },
  },
  {
    name: 'approvals: requested on one daemon, decided on the other once; a second decision is an invalid transition',
    async run({ callA, callB, b }) {
      const approval = ok(
        await callA('approval', 'request', { title: 'deploy?', detail: 'prod' }),
      ).approval;
      const decided = await Promise.all([
        b.services.approvals.decideAsOperator(approval.id, 'approve', 'ok', 'human:ops').then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        ),
        b.services.approvals.decideAsOperator(approval.id, 'reject', 'no', 'human:ops').then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        ),
      ]);
      assert.deepEqual(decided.sort(), ['invalid_transition', 'ok']);
      const read = ok(await callA('approval', 'get', { id: approval.id })).approval;
      assert.ok(['approved', 'rejected'].includes(read.status));
      assert.equal(ok(await callB('approval', 'list', {})).approvals.length, 1);
    },
  },
  {
    name: 'messages: posted through one daemon, in the history read through the other; reactions from both are all kept',
    async run({ a, b }) {
      const sent = [];
      for (const s of AWKWARD)
        sent.push(
          await a.services.messages.send({
            serverId: 's1',
            target: 'channel:general',
            author: 'agent:a1',
            content: s,
          }),
        );
      const history = await b.services.messages.history({
        serverId: 's1',
        target: 'channel:general',
        limit: 50,
      });
      assert.deepEqual(history.messages.map((m) => m.content).reverse(), AWKWARD);
      const target = sent[0]!;
      await Promise.all([
        ...['a1', 'a2', 'a3'].map((x) =>
          a.services.messages.react({
            serverId: 's1',
            messageId: target.id,
            emoji: '👍',
            author: `agent:${x}`,
          }),
        ),
        ...['b1', 'b2'].map((x) =>
          b.services.messages.react({
            serverId: 's1',
            messageId: target.id,
            emoji: '👍',
            author: `agent:${x}`,
          }),
        ),
      ]);
      const after = (
        await a.services.messages.history({ serverId: 's1', target: 'channel:general', limit: 50 })
      ).messages.find((m) => m.id === target.id)!;
      assert.deepEqual([...after.reactions[0]!.authors].sort(), [
        'agent:a1',
        'agent:a2',
        'agent:a3',
        'agent:b1',
        'agent:b2',
      ]);
      let page = await b.services.messages.history({
        serverId: 's1',
        target: 'channel:general',
        limit: 2,
      });
      const paged = [...page.messages];
      while (page.nextCursor) {
        page = await a.services.messages.history({
          serverId: 's1',
          target: 'channel:general',
          limit: 2,
          cursor: page.nextCursor,
        });
        paged.push(...page.messages);
      }
      assert.deepEqual(
        paged.map((m) => m.id),
        history.messages.map((m) => m.id),
      );
    },
  },
  {
    name: 'a due scheduled message is delivered exactly once when both daemons run it at the same moment',
    async run({ a, b, callA, advance }) {
      const at = new Date(a.clock.now() + 2_000).toISOString();
      const s = ok(
        await callA('scheduled-message', 'create', {
          target: 'channel:ops',
          content: 'standup',
          at,
        }),
      ).scheduledMessage;
      advance(2_500);
      await Promise.all([
        a.services.scheduler.tick(),
        b.services.scheduler.tick(),
        a.services.scheduler.tick(),
        b.services.scheduler.tick(),
      ]);
      const history = await b.services.messages.history({
        serverId: 's1',
        target: 'channel:ops',
        limit: 10,
      });
      assert.deepEqual(
        history.messages.map((m) => m.content),
        ['standup'],
      );
      const runs = ok(await callA('scheduled-message', 'runs', { id: s.id })).runs;
      assert.equal(runs.length, 1);
      assert.equal(
        ok(await callA('scheduled-message', 'get', { id: s.id })).scheduledMessage.status,
        'completed',
      );
    },
  },
  {
    name: 'a profile edit under one idempotency key is applied by each daemon to its own profile, and replayed only where it was made',
    async run({ callA, b }) {
      // The same server and agent on both daemons: the record's scope is the same, only the daemon differs.
      const callB = await b.runtime('s1', 'a1');
      const input = { id: 'reviewer', displayName: 'Reviewer', idempotencyKey: 'add-reviewer' };
      const first = ok(await callA('agent', 'create', input));
      assert.deepEqual(
        ok(await callA('agent', 'create', input)),
        first,
        'replayed on the daemon that made it',
      );
      const onB = ok(await callB('agent', 'create', input));
      assert.equal(onB.agent.id, 'reviewer');
      assert.ok(
        ok(await callB('agent', 'list', {})).agents.some(
          (x: { id: string }) => x.id === 'reviewer',
        ),
        "B's own profile has it",
      );
    },
  },
  {
    name: 'workflows: a plan made on one daemon runs on the other; a step completes once',
    async run({ callA, callB }) {
      const plan = ok(
        await callA('workflow', 'plan', {
          op: 'create',
          name: 'Release',
          steps: [{ name: 'build' }, { name: 'ship' }],
        }),
      ).plan;
      ok(await callB('workflow', 'plan', { op: 'publish', id: plan.id }));
      const started = ok(await callB('workflow', 'run', { op: 'start', planId: plan.id }));
      const step = started.steps[0];
      const racers = await Promise.all(
        [callA, callB, callA].map((c) => c('workflow', 'step', { op: 'complete', id: step.id })),
      );
      assert.deepEqual(racers.map((r) => r.status).sort(), [200, 409, 409]);
      const steps = ok(
        await callA('workflow', 'step', { op: 'list', runId: started.run.id }),
      ).steps;
      assert.deepEqual(
        steps.map((s: { status: string }) => s.status),
        ['completed', 'ready'],
      );
    },
  },
  {
    name: 'audit: both daemons record into one trail; pages and cursors hold across them; a summary counts both',
    async run({ a, b, callA, callB }) {
      for (let i = 0; i < 3; i++) ok(await callA('task', 'list', {}));
      for (let i = 0; i < 4; i++) ok(await callB('task', 'list', {}));
      assert.equal(
        code(await callB('task', 'get', { id: 'task_N0pe0000000000000000' })),
        'not_found',
      );
      await a.services.audit!.recorder.flush();
      await b.services.audit!.recorder.flush();
      const first = await a.services.auditLog.list({ limit: 5 });
      assert.equal(first.hasMore, true);
      const rest = await b.services.auditLog.list({ limit: 5, cursor: first.nextCursor });
      const rows = [...first.items, ...rest.items];
      assert.equal(rows.length, 8);
      assert.deepEqual(rows.map((r) => r.agentId).sort(), [
        'a1',
        'a1',
        'a1',
        'a2',
        'a2',
        'a2',
        'a2',
        'a2',
      ]);
      assert.equal(new Set(rows.map((r) => r.seq)).size, 8);
      const failed = await b.services.auditLog.list({ outcome: 'not_found' });
      assert.deepEqual(
        failed.items.map((r) => [r.agentId, r.tool]),
        [['a2', 'task/get']],
      );
      const s = await a.services.auditLog.summary(0);
      assert.deepEqual(
        s.byAgent.map((x) => [x.key, x.calls, x.errors]),
        [
          ['a2', 5, 1],
          ['a1', 3, 0],
        ],
      );
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
