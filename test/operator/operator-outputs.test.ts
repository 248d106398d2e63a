import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OperatorRoute } from '../../catalog/operator/route.js';
import { OPERATOR_API, type OperatorRouteName } from '../../catalog/operator/table.js';
import type { OperatorCallInput } from '../../lib/operator-client.js';
import { createValidator } from '../../lib/validator.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { call, closeHttp } from '../../devkit/http.js';
import { operatorOf } from '../../devkit/operator.js';
import { connectAgent, connectApp, echoTool } from '../../devkit/client-tools.js';

/*
 * The dispatcher does not check what a handler answers, so the rows' output
 * schemas are checked here against a running daemon's real answers: the
 * typed client trusts them, and OpenAPI publishes them.
 */

test.after(() => closeHttp());

const ROWS = OPERATOR_API as readonly OperatorRoute[];
const row = (name: string) => ROWS.find((r) => r.name === name)!;
const ajv = createValidator();

/** Fails, naming the row and the first mismatch, when `data` is not what the row's output schema says. */
function assertOutput(name: OperatorRouteName, data: unknown): void {
  const valid = ajv.compile(row(name).output as object);
  assert.ok(valid(data), `${name}: ${ajv.errorsText(valid.errors)}\n${JSON.stringify(data)}`);
}

test('every row declares an output schema that compiles, and none is a bare object', () => {
  for (const r of ROWS) {
    ajv.compile(r.output as object);
    // A stream's first line may be empty (SSE); every other answer says what it holds.
    if (r.stream?.kind !== 'sse')
      assert.notDeepEqual(r.output, { type: 'object' }, `${r.name}: say what the answer holds`);
  }
});

test("a running daemon's answers match the output schemas of their rows", async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const created = await call(rt, 'task', 'create', { title: 'check the schemas' });
  assert.equal(created.status, 200);
  const taskId = (created.json as { data: { task: { id: string } } }).data.task.id;
  const asked = await call(rt, 'approval', 'request', { title: 'ship it', detail: 'all green' });
  assert.equal(asked.status, 200);
  const approvalId = (asked.json as { data: { approval: { id: string } } }).data.approval.id;
  // A refused declaration, so the report's problems are not empty.
  mkdirSync(join(d.home, 'tools'), { recursive: true });
  writeFileSync(join(d.home, 'tools', 'broken.json'), '{ "name": ');
  const backup = mkdtempSync(join(tmpdir(), 'agentteam-outputs-'));
  t.after(() => rmSync(backup, { recursive: true, force: true }));

  const op = operatorOf(d);
  const checked: string[] = [];
  const check = async <N extends OperatorRouteName>(name: N, input: OperatorCallInput<N>) => {
    const data = await op.call(name, input);
    assertOutput(name, data);
    checked.push(name);
    return data;
  };

  // An agent with nothing to run: a message to it queues a turn that fails at once (no_runtime).
  writeFileSync(
    join(d.home, 'profile.json'),
    JSON.stringify({ agents: [{ id: 'idle', runtime: 'generic' }], teams: [] }),
  );
  const reloaded = await check('daemon.reload', {});
  assert.ok(reloaded.tools.problems.length > 0);
  const status = await check('daemon.status', {});
  assert.equal(status.leases, 1);
  await check('daemon.logs', { query: {} });
  await check('console.code', {});
  await check('store.backup', { body: { path: join(backup, 'team.db') } });
  await check('runtimes.list', {});
  await check('approvals.servers', {});
  await check('approvals.pending', {});
  await check('approvals.get', { params: { id: approvalId } });
  await check('audit.list', { query: {} });
  await check('audit.summary', { query: {} });
  await check('audit.minutes', { query: {} });
  await check('extensions.list', {});
  await check('catalog.get', {});
  await check('tools.list', {});
  await check('tools.log', { query: {} });
  await check('clientTools.clients', {});
  await check('clientTools.requests', { query: {} });
  await check('clientTools.offered', {});
  const local = { serverId: 'local' };
  assert.equal((await check('reads.task.list', { params: local, body: {} })).tasks[0]?.id, taskId);
  await check('reads.task.get', { params: local, body: { id: taskId } });
  await check('reads.approval.list', { params: local, body: { status: 'pending' } });
  await check('reads.scheduled-message.list', { params: local, body: {} });
  await check('reads.workflow.run', { params: local, body: { op: 'list' } });
  const posted = await check('messages.post', {
    body: { serverId: 'local', target: 'dm:idle', author: 'human:ada', content: 'hello' },
  });
  const turnId = posted.turns[0]!.turnId;
  assert.equal((await check('reads.turn.list', { params: local, body: {} })).turns[0]?.id, turnId);
  await check('reads.turn.get', { params: local, body: { id: turnId } });
  const person = { as: 'human:ada' };
  const { project } = await check('writes.project.create', {
    params: local,
    query: person,
    body: { name: 'Relaunch' },
  });
  await check('reads.project.list', { params: local, body: {} });
  await check('reads.project.get', { params: local, body: { id: project.id } });
  const assigned = await check('writes.task.create', {
    params: local,
    query: person,
    body: { title: 'For the idle agent', assignee: 'idle', projectId: project.id },
  });
  assert.equal(assigned.turns?.length, 1);
  await check('writes.task.update', {
    params: local,
    query: {},
    body: { id: assigned.task.id, status: 'done' },
  });
  await check('reads.review.list', { params: local, body: { taskId: assigned.task.id } });
  assert.deepEqual(
    ROWS.filter((r) => r.name.startsWith('writes.') && !checked.includes(r.name)),
    [],
  );
  // Every read row is among them but the two that need an entity of their own.
  const reads = ROWS.filter((r) => r.name.startsWith('reads.')).map((r) => r.name);
  assert.deepEqual(
    reads.filter((n) => !checked.includes(n)),
    ['reads.scheduled-message.get', 'reads.scheduled-message.runs'],
  );
});

test("the client-tool relay's answers match their rows: register, claim, result, the provider's list", async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const app = await connectApp(d);
  t.after(() => app.close());
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  const ok = (name: OperatorRouteName, r: { status: number; body: any }) => {
    assert.equal(r.body?.ok, true, `${name}: ${JSON.stringify(r.body)}`);
    assertOutput(name, r.body.data);
    return r.body.data;
  };
  ok('clientTools.register', await app.register('g', [echoTool('g_echo')]));
  const result = agent.client.callTool({ name: 'g_echo', arguments: { text: 'hi' } });
  const f = await app.next<{ request_id: string }>((x) => x.type === 'client_tool.request');
  const op = operatorOf(d);
  const mine = await op.call('clientTools.requests', { query: { client_id: app.clientId } });
  assertOutput('clientTools.requests', mine);
  assert.equal(mine.requests.length, 1);
  const claimed = ok('clientTools.claim', await app.claim(f.data.request_id));
  assert.equal(claimed.state, 'claimed');
  ok(
    'clientTools.result',
    await app.answer(f.data.request_id, { ok: true, content: [{ type: 'text', text: 'hi' }] }),
  );
  await result;
  assertOutput('clientTools.clients', await op.call('clientTools.clients', {}));
  assertOutput('clientTools.offered', await op.call('clientTools.offered', {}));
  assertOutput('daemon.status', await op.call('daemon.status', {}));
});
