import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKFLOW_OP_MATRIX } from '../../catalog/workflow-ops.js';
import {
  workflowPlan,
  workflowRun,
  workflowStep,
  workflowTrigger,
} from '../../catalog/domains/workflow.js';
import { LIMITS, jsonBytes } from '../../catalog/limits.js';
import { openDb } from '../../daemon/store/db.js';
import { TeamServer } from '../../daemon/store/team-server.js';
import { SqliteSql } from '../../daemon/store/sqlite-sql.js';
import { cursorCases, startInProc, type Caller } from '../../devkit/inproc.js';

const MIN = 60_000;

/** Calls workflow ops and records which ones were exercised. */
function recorder(call: Caller) {
  const seen = new Set<string>();
  const wf = async (
    action: string,
    input: Record<string, unknown>,
    headers?: Record<string, string>,
  ) => {
    seen.add(`${action}.${String(input.op)}`);
    return call('workflow', action, input, headers);
  };
  return { wf, seen };
}

const ok = (r: { status: number; json: any }) => {
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json.data;
};

test('the op enums of the descriptors are exactly the matrix', () => {
  for (const [action, d] of [
    ['plan', workflowPlan],
    ['trigger', workflowTrigger],
    ['run', workflowRun],
    ['step', workflowStep],
  ] as const) {
    assert.deepEqual(
      [...d.input.properties.op.enum].sort(),
      Object.keys(WORKFLOW_OP_MATRIX[action]).sort(),
      action,
    );
  }
});

test('a plan is created, versioned, published, triggered; an agent completes the run step by step; every op of the matrix runs', async (t) => {
  const p = await startInProc(t);
  p.services.scheduler.start();
  const { wf, seen } = recorder(await p.runtime());
  const v = ok(
    await wf('plan', { op: 'validate', steps: [{ name: 'a' }, { name: 'A ' }] }),
  ).validation;
  assert.deepEqual([v.valid, v.problems[0].path], [false, '/steps/1/name']);
  const created = ok(
    await wf('plan', {
      op: 'create',
      name: 'Release',
      steps: [{ name: 'build' }, { name: 'ship' }],
    }),
  );
  const planId = created.plan.id;
  assert.deepEqual(
    [created.plan.status, created.plan.latestVersion, created.plan.publishedVersion],
    ['draft', 1, null],
  );
  const early = await wf('run', { op: 'start', planId });
  assert.equal(early.json.error.code, 'invalid_transition');
  const updated = ok(
    await wf('plan', {
      op: 'update',
      id: planId,
      steps: [{ name: 'build' }, { name: 'verify', description: 'smoke tests' }, { name: 'ship' }],
    }),
  );
  assert.equal(updated.plan.latestVersion, 2);
  assert.deepEqual(
    ok(await wf('plan', { op: 'version', id: planId, version: 1 })).version.steps.map(
      (s: { name: string }) => s.name,
    ),
    ['build', 'ship'],
  );
  assert.equal(ok(await wf('plan', { op: 'publish', id: planId })).plan.publishedVersion, 2);
  assert.equal(ok(await wf('plan', { op: 'show', id: planId })).plan.status, 'published');
  assert.equal(ok(await wf('plan', { op: 'list' })).plans.length, 1);

  const tv = ok(
    await wf('trigger', { op: 'validate', kind: 'schedule', cron: '* * * * *' }),
  ).validation;
  assert.deepEqual(
    tv.problems.map((x: { path: string }) => x.path),
    ['/timeZone'],
  );
  const manual = ok(await wf('trigger', { op: 'create', planId, kind: 'manual' })).trigger;
  const started = ok(await wf('run', { op: 'start', triggerId: manual.id }));
  assert.deepEqual(
    started.steps.map((s: { status: string }) => s.status),
    ['ready', 'pending', 'pending'],
  );
  assert.deepEqual(
    [started.run.planVersion, started.run.triggerId, started.run.startedBy],
    [2, manual.id, 'agent:a1'],
  );
  const runId = started.run.id;
  const [s0, s1, s2] = ok(await wf('step', { op: 'list', runId })).steps;
  assert.equal(ok(await wf('step', { op: 'get', id: s1.id })).step.status, 'pending');
  assert.equal(
    (await wf('step', { op: 'complete', id: s1.id })).json.error.code,
    'invalid_transition',
  );
  ok(await wf('step', { op: 'complete', id: s0.id, note: 'green' }));
  assert.equal(
    ok(await wf('step', { op: 'pause', id: s1.id, note: 'waiting for QA' })).step.status,
    'paused',
  );
  assert.equal(
    (await wf('step', { op: 'pause', id: s1.id })).json.error.code,
    'invalid_transition',
  );
  assert.equal(ok(await wf('step', { op: 'park', id: s1.id })).step.status, 'parked');
  ok(await wf('step', { op: 'complete', id: s1.id }));
  const last = ok(await wf('step', { op: 'complete', id: s2.id }));
  assert.deepEqual([last.step.status, last.run.status], ['completed', 'completed']);
  assert.ok(last.run.finishedAt);
  assert.equal(
    (await wf('step', { op: 'complete', id: s2.id })).json.error.code,
    'invalid_transition',
  );
  const logs = ok(await wf('run', { op: 'logs', id: runId, limit: 100 })).logs.map(
    (l: { event: string }) => l.event,
  );
  assert.deepEqual(logs, [
    'run_started',
    'step_completed',
    'step_ready',
    'step_paused',
    'step_parked',
    'step_completed',
    'step_ready',
    'step_completed',
    'run_completed',
  ]);
  assert.equal(ok(await wf('run', { op: 'show', id: runId })).steps.length, 3);
  assert.equal(ok(await wf('run', { op: 'list', status: 'completed' })).runs.length, 1);

  const second = ok(await wf('run', { op: 'start', planId })).run;
  const [f0] = ok(await wf('step', { op: 'list', runId: second.id })).steps;
  assert.equal(
    ok(await wf('step', { op: 'fail', id: f0.id, note: 'build broke' })).run.status,
    'failed',
  );
  const third = ok(await wf('run', { op: 'start', planId })).run;
  assert.equal(ok(await wf('run', { op: 'cancel', id: third.id })).run.status, 'cancelled');
  assert.equal(
    (await wf('run', { op: 'cancel', id: third.id })).json.error.code,
    'invalid_transition',
  );

  assert.equal(
    ok(await wf('trigger', { op: 'disable', id: manual.id })).trigger.status,
    'disabled',
  );
  assert.equal(
    (await wf('run', { op: 'start', triggerId: manual.id })).json.error.code,
    'invalid_transition',
  );
  assert.equal(ok(await wf('trigger', { op: 'enable', id: manual.id })).trigger.status, 'enabled');
  const sched = ok(
    await wf('trigger', {
      op: 'create',
      planId,
      kind: 'schedule',
      cron: '0 * * * *',
      timeZone: 'UTC',
    }),
  ).trigger;
  assert.equal(
    ok(await wf('trigger', { op: 'update', id: sched.id, cron: '*/30 * * * *' })).trigger.cron,
    '*/30 * * * *',
  );
  assert.equal(ok(await wf('trigger', { op: 'show', id: sched.id })).trigger.kind, 'schedule');
  assert.equal(ok(await wf('trigger', { op: 'list', planId })).triggers.length, 2);
  assert.equal(ok(await wf('trigger', { op: 'archive', id: sched.id })).trigger.status, 'archived');
  assert.equal(
    (await wf('trigger', { op: 'enable', id: sched.id })).json.error.code,
    'invalid_transition',
  );
  assert.equal(ok(await wf('plan', { op: 'archive', id: planId })).plan.status, 'archived');
  assert.equal(
    (await wf('plan', { op: 'publish', id: planId })).json.error.code,
    'invalid_transition',
  );

  const all = Object.entries(WORKFLOW_OP_MATRIX).flatMap(([a, ops]) =>
    Object.keys(ops).map((o) => `${a}.${o}`),
  );
  assert.deepEqual([...seen].filter((x) => all.includes(x)).sort(), all.sort());
});

test('a delegated child may read but not change: effect ops are refused by the matrix, read ops pass', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime('s1', 'a1', { primaryThreadId: 'main' });
  const child = { 'x-agentteam-thread-id': 'child-7' };
  const plan = ok(
    await call(
      'workflow',
      'plan',
      { op: 'create', name: 'P', steps: [{ name: 'x' }] },
      { 'x-agentteam-thread-id': 'main' },
    ),
  ).plan;
  const refused = await call('workflow', 'plan', { op: 'publish', id: plan.id }, child);
  assert.deepEqual(
    [refused.status, refused.json.error.code, refused.json.error.metadata],
    [403, 'forbidden', { childThread: true }],
  );
  assert.equal(
    ok(await call('workflow', 'plan', { op: 'show', id: plan.id }, child)).plan.status,
    'draft',
  );
  assert.equal(ok(await call('workflow', 'plan', { op: 'list' }, child)).plans.length, 1);
  assert.equal((await call('task', 'create', { title: 'x' }, child)).json.error.code, 'forbidden');
  assert.equal(ok(await call('task', 'list', {}, child)).tasks.length, 0);
  ok(await call('workflow', 'plan', { op: 'publish', id: plan.id }));
});

test('idempotency follows the matrix: effect ops replay their first result, read ops refuse a key', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  const a = await call('workflow', 'plan', {
    op: 'create',
    name: 'P',
    steps: [{ name: 'x' }],
    idempotencyKey: 'k1',
  });
  const b = await call('workflow', 'plan', {
    op: 'create',
    name: 'P',
    steps: [{ name: 'x' }],
    idempotencyKey: 'k1',
  });
  assert.deepEqual(b.json, a.json);
  assert.equal(ok(await call('workflow', 'plan', { op: 'list' })).plans.length, 1);
  const c = await call('workflow', 'plan', {
    op: 'archive',
    id: a.json.data.plan.id,
    idempotencyKey: 'k1',
  });
  assert.equal(c.json.error.code, 'idempotency_conflict');
  const r = await call('workflow', 'plan', { op: 'list', idempotencyKey: 'k2' });
  assert.deepEqual(
    [r.json.error.code, r.json.error.details[0].path],
    ['validation_failed', '/idempotencyKey'],
  );
  const wrong = await call('workflow', 'plan', {
    op: 'show',
    id: a.json.data.plan.id,
    steps: [{ name: 'y' }],
  });
  assert.deepEqual(
    [wrong.json.error.code, wrong.json.error.details[0].path],
    ['validation_failed', '/steps'],
  );
  const missing = await call('workflow', 'plan', { op: 'show' });
  assert.deepEqual(
    [missing.json.error.code, missing.json.error.details[0].path],
    ['validation_failed', '/id'],
  );
});

test('plan size limits: the largest plan the schema allows is created and shown; one step or code point more is refused with no trace', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  // Every string at its published limit, written with 6-byte control characters and 4-byte emoji.
  const fill = (l: { chars: number; bytes: number }, i: number) =>
    `${i}`.padEnd(Math.min(l.chars, Math.floor(l.bytes / 6)), '\u0001');
  const steps = Array.from({ length: LIMITS.planSteps }, (_, i) => ({
    name: fill(LIMITS.stepName, i),
    description: fill(LIMITS.stepDescription, i),
  }));
  const name = '\u{1F600}'.repeat(
    Math.min(LIMITS.planName.chars, Math.floor(LIMITS.planName.bytes / 4)),
  );
  // At the published limit in the costliest characters: every code point a 6-byte control character, within the byte budget.
  const description = '\u0001'.repeat(LIMITS.planDescription.chars);
  assert.ok(jsonBytes(description) <= LIMITS.planDescription.bytes);
  const big = ok(await call('workflow', 'plan', { op: 'create', name, description, steps }));
  const id = big.plan.id;
  assert.equal(big.plan.description, description);
  const shown = ok(await call('workflow', 'plan', { op: 'version', id, version: 1 }));
  assert.deepEqual(shown.version.steps, steps);
  assert.equal(ok(await call('workflow', 'plan', { op: 'list', limit: 1 })).plans[0].id, id);
  ok(await call('workflow', 'plan', { op: 'publish', id }));
  const run = ok(await call('workflow', 'run', { op: 'start', planId: id }));
  const note = '\u0001'.repeat(Math.floor(LIMITS.stepNote.bytes / 6));
  // Each completion readies the next step; the log quotes every note.
  for (const st of run.steps)
    ok(await call('workflow', 'step', { op: 'complete', id: st.id, note }));
  const runShown = ok(await call('workflow', 'run', { op: 'show', id: run.run.id }));
  assert.equal(runShown.steps.length, LIMITS.planSteps);
  const logs = ok(await call('workflow', 'run', { op: 'logs', id: run.run.id, limit: 100 }));
  assert.ok(logs.logs.length > 0);
  for (const bad of [
    { op: 'create', name: 'x', steps: [...steps, { name: 'one more' }] },
    {
      op: 'create',
      name: 'x',
      steps: [{ name: 'a', description: `\u0001${fill(LIMITS.stepDescription, 0)}` }],
    },
    { op: 'create', name: `a${name}`, steps: [{ name: 'a' }] },
    { op: 'create', name: 'x', description: `a${description}`, steps: [{ name: 'a' }] }, // one code point over
  ]) {
    const r = await call('workflow', 'plan', bad);
    assert.equal(r.json.error?.code, 'validation_failed', JSON.stringify(bad).slice(0, 80));
  }
  assert.equal(ok(await call('workflow', 'plan', { op: 'list' })).plans.length, 1);
  const overNote = await call('workflow', 'step', {
    op: 'complete',
    id: run.steps[0].id,
    note: `${note}\u0001`,
  });
  assert.equal(overNote.json.error?.code, 'validation_failed');
});

test('schedule triggers start runs on time and once for a missed window; message triggers start a run per message', async (t) => {
  const p = await startInProc(t);
  await p.services.scheduler.start();
  const call = await p.runtime();
  const planId = ok(
    await call('workflow', 'plan', { op: 'create', name: 'P', steps: [{ name: 'x' }] }),
  ).plan.id;
  ok(await call('workflow', 'plan', { op: 'publish', id: planId }));
  const sched = ok(
    await call('workflow', 'trigger', {
      op: 'create',
      planId,
      kind: 'schedule',
      cron: '* * * * *',
      timeZone: 'UTC',
    }),
  ).trigger;
  ok(
    await call('workflow', 'trigger', {
      op: 'create',
      planId,
      kind: 'message',
      target: 'channel:deploys',
    }),
  );
  await p.advance(2 * MIN);
  assert.equal(ok(await call('workflow', 'run', { op: 'list', planId })).runs.length, 2);
  await p.services.scheduler.stop();
  await p.advance(5 * MIN);
  await p.services.scheduler.start();
  const runs = ok(await call('workflow', 'run', { op: 'list', planId })).runs;
  assert.equal(runs.length, 3);
  assert.equal(runs[0].startedBy, `trigger:${sched.id}`);
  const log = ok(await call('workflow', 'run', { op: 'logs', id: runs[0].id })).logs[0].detail;
  assert.match(log, /late, stands for 5 occurrence/);
  ok(await call('workflow', 'trigger', { op: 'disable', id: sched.id }));
  await p.advance(3 * MIN);
  assert.equal(ok(await call('workflow', 'run', { op: 'list', planId })).runs.length, 3);
  await p.services.messages.send({
    serverId: 's1',
    target: 'channel:deploys',
    author: 'human:ana',
    content: 'ship it',
  });
  await p.services.messages.send({
    serverId: 's1',
    target: 'channel:other',
    author: 'human:ana',
    content: 'noise',
  });
  await p.services.messages.send({
    serverId: 's2',
    target: 'channel:deploys',
    author: 'human:ana',
    content: 'other server',
  });
  const after = ok(await call('workflow', 'run', { op: 'list', planId })).runs;
  assert.equal(after.length, 4);
  assert.match(after[0].startedBy, /^trigger:trig_/);
});

test('every workflow collection pages and rejects bad, foreign and filter-mismatched cursors', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  const other = await p.runtime('s2', 'a1');
  const steps = Array.from({ length: 7 }, (_, i) => ({ name: `s${i}` }));
  const plans: string[] = [];
  for (let i = 0; i < 7; i++) {
    p.clock.advance(i % 2 ? 1000 : 0);
    plans.push(ok(await call('workflow', 'plan', { op: 'create', name: `p${i}`, steps })).plan.id);
  }
  ok(await call('workflow', 'plan', { op: 'publish', id: plans[0] }));
  ok(await call('workflow', 'plan', { op: 'publish', id: plans[1] }));
  for (let i = 0; i < 5; i++)
    ok(await call('workflow', 'trigger', { op: 'create', planId: plans[0], kind: 'manual' }));
  const runs: string[] = [];
  for (let i = 0; i < 5; i++)
    runs.push(ok(await call('workflow', 'run', { op: 'start', planId: plans[0] })).run.id);
  const firstSteps = ok(
    await call('workflow', 'step', { op: 'list', runId: runs[0], limit: 100 }),
  ).steps;
  for (const s of firstSteps.slice(0, 4))
    ok(await call('workflow', 'step', { op: 'complete', id: s.id }));
  ok(await call('workflow', 'run', { op: 'start', planId: plans[1] }));

  const cases: [string, Record<string, unknown>, Record<string, unknown>, string, number][] = [
    ['plan', { op: 'list', status: 'draft' }, { op: 'list', status: 'published' }, 'plans', 5],
    ['trigger', { op: 'list', planId: plans[0] }, { op: 'list', planId: plans[1] }, 'triggers', 5],
    ['run', { op: 'list', planId: plans[0] }, { op: 'list', planId: plans[1] }, 'runs', 5],
    ['run', { op: 'logs', id: runs[0] }, { op: 'logs', id: runs[1] }, 'logs', 9],
    ['step', { op: 'list', runId: runs[0] }, { op: 'list', runId: runs[1] }, 'steps', 7],
  ];
  for (const [action, base, mismatched, field, total] of cases) {
    const ids: unknown[] = [];
    let cursor: string | undefined;
    let firstCursor: string | undefined;
    do {
      const r = ok(
        await call('workflow', action, { ...base, limit: 2, ...(cursor ? { cursor } : {}) }),
      );
      ids.push(...r[field].map((x: { id?: string; seq?: number }) => x.id ?? x.seq));
      assert.equal(r.hasMore, 'nextCursor' in r);
      cursor = r.nextCursor;
      firstCursor ??= cursor;
    } while (cursor);
    assert.equal(ids.length, total, `${action} ${String(base.op)}`);
    assert.equal(new Set(ids).size, total);
    assert.deepEqual(
      await cursorCases(call, other, 'workflow', action, base, firstCursor!, mismatched),
      [],
      `${action} ${String(base.op)}`,
    );
  }
});

test("a due schedule trigger fires once under concurrent runDue calls; a message trigger writes inside the sender's transaction", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-wf-'));
  const db = openDb(join(dir, 'store.db'));
  const sql = new SqliteSql(db, join(dir, 'store.db'));
  let now = Date.UTC(2026, 0, 5, 9, 0, 0);
  const server = await TeamServer.open(sql, () => now);
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const api = server.forCaller({ serverId: 's1', agentId: 'a1' });
  const triggers = server.workflows.triggers;
  const { plan } = await api.workflowPlan({
    op: 'create',
    name: 'P',
    steps: [{ name: 'x' }],
  } as never);
  await api.workflowPlan({ op: 'publish', id: plan!.id } as never);
  const { trigger } = await api.workflowTrigger({
    op: 'create',
    planId: plan!.id,
    kind: 'schedule',
    cron: '* * * * *',
    timeZone: 'UTC',
  } as never);
  assert.equal(await triggers.nextDueAt(), now + MIN);
  now += MIN;
  // Both read the trigger as due; only the first transaction's claim moves its due time.
  const [a, b] = await Promise.all([triggers.runDue(now), triggers.runDue(now)]);
  assert.deepEqual(
    [...a, ...b],
    [{ scheduleId: trigger!.id, delivered: true, late: false, missed: 1 }],
  );
  assert.equal(await triggers.nextDueAt(), now + MIN);
  assert.deepEqual(await triggers.runDue(now), []);
  const runs = async () =>
    ((await api.workflowRun({ op: 'list', planId: plan!.id } as never)).runs ?? []).length;
  assert.equal(await runs(), 1);

  await api.workflowTrigger({
    op: 'create',
    planId: plan!.id,
    kind: 'message',
    target: 'channel:deploys',
  } as never);
  await assert.rejects(
    sql.tx(async (q) => {
      await triggers.onMessage(q, 's1', 'channel:deploys', 'msg_1');
      assert.equal((await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM wf_runs'))!.n, 2);
      throw new Error('the sender fails');
    }),
    /the sender fails/,
  );
  assert.equal(await runs(), 1);
  await sql.tx((q) => triggers.onMessage(q, 's1', 'channel:deploys', 'msg_2'));
  assert.equal(await runs(), 2);
});
