import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { AWKWARD, BACKENDS, code, ok, type Case } from '../../devkit/store-contract.js';

/* The store contract (devkit/store-contract.ts), part two: the other domains across two daemons: projects, reviews, approvals, messages, schedules, profile edits, workflows, audit. */

const CASES: Case[] = [
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
    name: 'approvals: requested on one daemon, decided on the other once; a second decision is already_decided',
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
      assert.deepEqual(decided.sort(), ['already_decided', 'ok']);
      const read = ok(await callA('approval', 'get', { id: approval.id })).approval;
      assert.ok(['approved', 'denied'].includes(read.status));
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
