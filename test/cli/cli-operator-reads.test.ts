import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, closeHttp, post } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime } from '../../devkit/daemon.js';

/*
 * The operator's read commands (`agentteam task list`, `approval list`, ...)
 * against a real daemon: what an agent created through Exec, read by a
 * person through the operator API, page by page with the same cursors and
 * the same JSON as Exec.
 */

test.after(() => closeHttp());

const ok = (r: { code: number; stdout: string; stderr: string }) => {
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as { ok: true; data: any };
};

test('task list pages across three pages with the same items, cursors and JSON as Exec; task get reads one', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  for (let i = 0; i < 5; i++)
    assert.equal(
      (await call(rt, 'task', 'create', { title: `task ${i}`, status: i % 2 ? 'done' : 'todo' }))
        .status,
      200,
    );

  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const viaCli = ok(
      await cli(d.home, ['task', 'list', '--limit', '2', ...(cursor ? ['--cursor', cursor] : [])]),
    );
    const viaExec = (await call(rt, 'task', 'list', { limit: 2, ...(cursor ? { cursor } : {}) }))
      .json;
    // One envelope, byte for byte: the operator read is the Exec read.
    assert.deepEqual(viaCli, viaExec);
    assert.ok(viaCli.data.tasks.length <= 2);
    seen.push(...viaCli.data.tasks.map((x: { id: string }) => x.id));
    cursor = viaCli.data.hasMore ? viaCli.data.nextCursor : undefined;
    pages++;
  } while (cursor);
  assert.equal(pages, 3);
  assert.equal(new Set(seen).size, 5);

  const todo = ok(await cli(d.home, ['task', 'list', '--status', 'todo']));
  assert.deepEqual(
    todo.data.tasks.map((x: { status: string }) => x.status),
    ['todo', 'todo', 'todo'],
  );
  // A cursor belongs to its filter, as on Exec.
  const first = ok(await cli(d.home, ['task', 'list', '--limit', '1', '--status', 'todo']));
  const foreign = await cli(d.home, [
    'task',
    'list',
    '--cursor',
    first.data.nextCursor,
    '--status',
    'done',
  ]);
  assert.equal(foreign.code, 1);
  assert.equal(JSON.parse(foreign.stdout).error.code, 'validation_failed');

  const one = ok(await cli(d.home, ['task', 'get', seen[0]!]));
  assert.equal(one.data.task.id, seen[0]);
  // The default server is `local`, the one `run` uses by default; another server sees none of it.
  assert.deepEqual(ok(await cli(d.home, ['task', 'list', '--server', 'other'])).data.tasks, []);
  const elsewhere = await cli(d.home, ['task', 'get', seen[0]!, '--server', 'other']);
  assert.equal(elsewhere.code, 1);
  assert.equal(JSON.parse(elsewhere.stdout).error.code, 'not_found');
});

test('approval list --status pending, scheduled-message list|get|runs and workflow run list|show read what agents created', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const asked = [];
  for (const title of ['one', 'two', 'three'])
    asked.push((await call(rt, 'approval', 'request', { title })).json.data.approval.id as string);
  assert.equal(
    ok(await cli(d.home, ['approval', 'decide', asked[0]!, 'approve'])).data.approval.status,
    'approved',
  );
  const pending = ok(
    await cli(d.home, ['approval', 'list', '--status', 'pending', '--limit', '1']),
  );
  assert.equal(pending.data.approvals.length, 1);
  assert.equal(pending.data.hasMore, true);
  const rest = ok(
    await cli(d.home, [
      'approval',
      'list',
      '--status',
      'pending',
      '--cursor',
      pending.data.nextCursor,
    ]),
  );
  assert.deepEqual(
    [...pending.data.approvals, ...rest.data.approvals].map((a: { id: string }) => a.id).sort(),
    [asked[1], asked[2]].sort(),
  );
  assert.equal(ok(await cli(d.home, ['approval', 'list'])).data.approvals.length, 3);

  const at = new Date(Date.now() + 3_600_000).toISOString();
  const sched = (
    await call(rt, 'scheduled-message', 'create', { target: 'channel:ops', content: 'later', at })
  ).json.data.scheduledMessage;
  const listed = ok(await cli(d.home, ['scheduled-message', 'list', '--status', 'active']));
  assert.deepEqual(
    listed.data.scheduledMessages.map((s: { id: string }) => s.id),
    [sched.id],
  );
  assert.equal(
    ok(await cli(d.home, ['scheduled-message', 'get', sched.id])).data.scheduledMessage.content,
    'later',
  );
  assert.deepEqual(ok(await cli(d.home, ['scheduled-message', 'runs', sched.id])).data.runs, []);

  const wf = async (action: string, input: unknown) =>
    (await call(rt, 'workflow', action, input)).json.data;
  const plan = (await wf('plan', { op: 'create', name: 'Release', steps: [{ name: 'build' }] }))
    .plan;
  await wf('plan', { op: 'publish', id: plan.id });
  const runs = [
    (await wf('run', { op: 'start', planId: plan.id })).run,
    (await wf('run', { op: 'start', planId: plan.id })).run,
  ];
  const page = ok(
    await cli(d.home, ['workflow', 'run', 'list', '--plan-id', plan.id, '--limit', '1']),
  );
  const next = ok(
    await cli(d.home, [
      'workflow',
      'run',
      'list',
      '--plan-id',
      plan.id,
      '--cursor',
      page.data.nextCursor,
    ]),
  );
  assert.deepEqual(
    [...page.data.runs, ...next.data.runs].map((r: { id: string }) => r.id).sort(),
    runs.map((r) => r.id).sort(),
  );
  assert.deepEqual(
    next,
    (
      await call(rt, 'workflow', 'run', {
        op: 'list',
        planId: plan.id,
        cursor: page.data.nextCursor,
      })
    ).json,
  );
  const shown = ok(await cli(d.home, ['workflow', 'run', 'show', runs[0].id]));
  assert.equal(shown.data.steps.length, 1);
});

test('operator reads refuse bad input locally (exit 2, JSON envelope) and refuse effects at the route', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  // An enum option outside its choices: a usage error, as a JSON envelope on stdout.
  const status = await cli(d.home, ['task', 'list', '--status', 'later']);
  assert.equal(status.code, 2);
  const env = JSON.parse(status.stdout);
  assert.equal(env.error.code, 'usage');
  assert.match(env.error.message, /todo/);
  for (const limit of ['0', '101', 'x']) {
    const r = await cli(d.home, ['task', 'list', '--limit', limit]);
    assert.equal(r.code, 2, limit);
    assert.equal(JSON.parse(r.stdout).error.code, 'usage');
  }
  assert.equal(ok(await cli(d.home, ['task', 'list', '--limit', '100'])).data.hasMore, false);
  // Not an id: the action's own validator refuses it before any request.
  const badId = await cli(d.home, ['task', 'get', 'nope']);
  assert.equal(badId.code, 2);
  assert.equal(JSON.parse(badId.stdout).error.code, 'validation_failed');
  const badServer = await cli(d.home, ['task', 'list', '--server', '-x']);
  assert.equal(badServer.code, 2);

  const token = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const route = (domain: string, action: string) =>
    `${d.url}/api/v1/servers/local/reads/${domain}/${action}`;
  const start = await post(
    route('workflow', 'run'),
    token,
    JSON.stringify({ op: 'start', planId: 'plan_0000000000' }),
  );
  assert.equal(start.status, 403);
  assert.equal(start.json.error.code, 'forbidden');
  const create = await post(route('task', 'create'), token, JSON.stringify({ title: 'x' }));
  assert.equal(create.status, 404);
  // No row serves it; the refusal names the reads that are open.
  assert.equal(create.json.error.code, 'not_found');
  assert.match(create.json.error.hint, /task list, task get/);
  const noToken = await post(route('task', 'list'), 'wrong', '{}');
  assert.equal(noToken.status, 403);
});

test('operator reads without a daemon exit 3', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  await d.stop();
  const r = await cli(d.home, ['approval', 'list']);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /no daemon is running/);
});
