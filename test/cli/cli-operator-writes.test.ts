import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { LIMITS } from '../../catalog/limits.js';
import { call, closeHttp, operatorCall } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime } from '../../devkit/daemon.js';

/*
 * A person's write commands (`agentteam task create | update | assign`,
 * `project create`) against a real daemon: what they write is what an
 * agent reads through Exec, field for field; bad input is refused with the
 * catalog's codes, by the CLI and by the daemon alike; and the audit trail
 * names the person for every write, refused ones included.
 */

test.after(() => closeHttp());

type R = { code: number; stdout: string; stderr: string };
const ok = (r: R) => {
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as { ok: true; data: any };
};
const refused = (r: R, code: string, exit = 1) => {
  assert.equal(r.code, exit, `${r.stdout}\n${r.stderr}`);
  assert.equal(JSON.parse(r.stdout).error.code, code, r.stdout);
};

test("task and project commands write for a person what Exec reads back; bad input gets the catalog's codes; the audit trail names the person", async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const as = ['--as', 'human:ada'];
  const exec = async (domain: string, action: string, input: unknown) => {
    const r = await call(rt, domain, action, input);
    assert.equal(r.status, 200, r.text);
    return r.json.data;
  };

  const project = ok(
    await cli(d.home, ['project', 'create', 'Relaunch', '--description', 'Q1', ...as]),
  ).data.project;
  assert.deepEqual((await exec('project', 'get', { id: project.id })).project, project);
  assert.deepEqual(
    ok(await cli(d.home, ['project', 'list'])).data.projects.map((p: { id: string }) => p.id),
    [project.id],
  );
  assert.deepEqual(ok(await cli(d.home, ['project', 'get', project.id])).data.project, project);

  const created = ok(
    await cli(d.home, [
      'task',
      'create',
      'Write the notes',
      '--description',
      'Two paragraphs',
      '--project-id',
      project.id,
      '--assignee',
      'bob',
      ...as,
    ]),
  ).data;
  // bob is no agent of the profile: nothing starts.
  assert.deepEqual(created.turns, []);
  const id = created.task.id as string;
  assert.deepEqual((await exec('task', 'get', { id })).task, created.task);
  assert.equal(created.task.status, 'todo');

  const updated = ok(
    await cli(d.home, [
      'task',
      'update',
      id,
      '--status',
      'in_progress',
      '--expected-revision',
      '1',
      ...as,
    ]),
  ).data.task;
  assert.equal(updated.revision, 2);
  assert.deepEqual((await exec('task', 'get', { id })).task, updated);
  const assigned = ok(await cli(d.home, ['task', 'assign', id, 'carol', ...as])).data.task;
  assert.equal(assigned.assignee, 'carol');
  const cleared = ok(
    await cli(d.home, ['task', 'update', id, '--no-assignee', '--no-project-id', ...as]),
  ).data.task;
  assert.equal(cleared.assignee, null);
  assert.equal(cleared.projectId, null);
  assert.deepEqual((await exec('task', 'get', { id })).task, cleared);
  // And what an agent changes, the person's read shows.
  await exec('task', 'update', { id, status: 'done' });
  assert.equal(ok(await cli(d.home, ['task', 'get', id])).data.task.status, 'done');

  // The title at its limit is taken; one character more is refused, by the CLI's validator and by the daemon's.
  const max = 'x'.repeat(LIMITS.taskTitle.chars);
  assert.equal(ok(await cli(d.home, ['task', 'create', max, ...as])).data.task.title, max);
  refused(await cli(d.home, ['task', 'create', `${max}x`, ...as]), 'validation_failed', 2);
  const raw = async (path: string, body: unknown) =>
    JSON.parse((await operatorCall(d, 'POST', path, body)).body) as {
      ok: boolean;
      error?: { code: string };
    };
  const base = '/api/v1/servers/local/writes';
  assert.equal(
    (await raw(`${base}/task/create?as=human:ada`, { title: `${max}x` })).error?.code,
    'validation_failed',
  );
  assert.equal(
    (await raw(`${base}/task/create?as=human:ada`, { title: 't', owner: 'x' })).error?.code,
    'validation_failed',
  );
  assert.equal(
    (await raw(`${base}/task/create?as=agent:a1`, { title: 't' })).error?.code,
    'invalid_request',
    'only a person can be named',
  );
  assert.equal(
    (await raw(`${base}/task/get?as=human:ada`, { id })).error?.code,
    'not_found',
    'a read is no write row',
  );
  assert.equal(
    (
      await raw(`${base}/task/update?as=human:ada`, {
        id,
        idempotencyKey: 'k',
        requestId: 'other',
        status: 'todo',
      })
    ).error?.code,
    'validation_failed',
    'conflicting selectors, as on Exec',
  );
  refused(await cli(d.home, ['task', 'update', id, ...as]), 'validation_failed');
  refused(
    await cli(d.home, ['task', 'update', id, '--project-id', 'project_000000', ...as]),
    'not_found',
  );
  refused(
    await cli(d.home, [
      'task',
      'update',
      id,
      '--status',
      'todo',
      '--expected-revision',
      '1',
      ...as,
    ]),
    'revision_conflict',
  );
  refused(await cli(d.home, ['task', 'assign', 'task_nothere', 'a1', ...as]), 'not_found');
  refused(await cli(d.home, ['task', 'create', 'x', '--as', 'agent:a1']), 'usage', 2);
  refused(await cli(d.home, ['task', 'create', 'x', '--as', 'human:']), 'usage', 2);
  const badStatus = await cli(d.home, ['task', 'create', 'x', '--status', 'later']);
  assert.equal(badStatus.code, 2);

  // One idempotency key, one task, per person: the key is the person's.
  const keyed = ['task', 'create', 'Once', '--idempotency-key', 'once-1'];
  const first = ok(await cli(d.home, [...keyed, ...as])).data.task;
  assert.equal(ok(await cli(d.home, [...keyed, ...as])).data.task.id, first.id);
  assert.notEqual(ok(await cli(d.home, [...keyed, '--as', 'human:bo'])).data.task.id, first.id);
  refused(
    await cli(d.home, ['task', 'create', 'Twice', '--idempotency-key', 'once-1', ...as]),
    'idempotency_conflict',
  );
  // Without --as the write is the default person's.
  ok(await cli(d.home, ['task', 'create', 'Nobody named']));

  // The audit trail: one row per write, naming the person, refusals included.
  let rows: { tool: string; outcome: string; via: string; transport: string; agentId: string }[] =
    [];
  for (const until = Date.now() + 10_000; Date.now() < until; ) {
    rows = ok(await cli(d.home, ['audit', '--agent', 'human:ada', '--limit', '100', '--json'])).data
      .entries;
    if (rows.some((r) => r.outcome === 'idempotency_conflict')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seen = rows.map((r) => `${r.tool} ${r.outcome}`);
  for (const want of [
    'project/create ok',
    'task/create ok',
    'task/update ok',
    'task/update revision_conflict',
    'task/update not_found',
    'task/create validation_failed',
    'task/create idempotency_conflict',
  ])
    assert.ok(seen.includes(want), `${want} in ${seen.join(', ')}`);
  for (const r of rows) {
    assert.equal(r.agentId, 'human:ada');
    assert.equal(r.via, 'operator');
    assert.equal(r.transport, 'operator');
  }
  // The agent's own update is the agent's row, not the person's.
  const mine = ok(await cli(d.home, ['audit', '--agent', 'a1', '--json'])).data.entries;
  assert.ok(mine.some((r: { tool: string }) => r.tool === 'task/update'));
  const other = ok(await cli(d.home, ['audit', '--agent', 'human:operator', '--json'])).data
    .entries;
  assert.deepEqual(
    other.map((r: { tool: string }) => r.tool),
    ['task/create'],
  );
});
