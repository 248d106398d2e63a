import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workflowPlan, workflowRun, workflowTrigger } from '../../catalog/domains/workflow.js';
import { openDb } from '../../daemon/store/db.js';
import { TeamServer } from '../../daemon/store/team-server.js';
import { SqliteSql } from '../../daemon/store/sqlite-sql.js';
import { startInProc } from '../../devkit/inproc.js';
import { workflowDomain } from '../../daemon/workflow/domain.js';
import { STORE_DOMAINS, STORE_MIGRATIONS } from '../../daemon/domains/list.js';

/* Workflow triggers: schedule triggers on the scheduler's clock, message triggers on delivery. */

const MIN = 60_000;

const ok = (r: { status: number; json: any }) => {
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json.data;
};

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

test("a due schedule trigger fires once under concurrent runDue calls; a message trigger writes inside the sender's transaction", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-wf-'));
  const db = openDb(join(dir, 'store.db'), STORE_MIGRATIONS);
  const sql = new SqliteSql(db, join(dir, 'store.db'));
  let now = Date.UTC(2026, 0, 5, 9, 0, 0);
  const server = await TeamServer.open(sql, () => now, STORE_DOMAINS);
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const api = server.forCaller({ serverId: 's1', agentId: 'a1' });
  const triggers = server.domain(workflowDomain).triggers;
  const { plan } = await api.call(workflowPlan, {
    op: 'create',
    name: 'P',
    steps: [{ name: 'x' }],
  } as never);
  await api.call(workflowPlan, { op: 'publish', id: plan!.id } as never);
  const { trigger } = await api.call(workflowTrigger, {
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
    ((await api.call(workflowRun, { op: 'list', planId: plan!.id } as never)).runs ?? []).length;
  assert.equal(await runs(), 1);

  await api.call(workflowTrigger, {
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
