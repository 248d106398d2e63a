import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { WORKFLOW_OP_MATRIX } from '../../catalog/workflow-ops.js';
import {
  workflowPlan,
  workflowRun,
  workflowStep,
  workflowTrigger,
} from '../../catalog/domains/workflow.js';
import { startInProc, type Caller } from '../../devkit/inproc.js';

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
