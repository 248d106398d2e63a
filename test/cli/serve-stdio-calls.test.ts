import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { operatorCall } from '../../devkit/http.js';
import { callFrom, connectAgent, type Agent } from '../../devkit/client-tools.js';
import { lookupTool, spawnServe, type StdioApp } from '../../devkit/serve-stdio.js';
import { toolFingerprint } from '../../catalog/tool-fingerprint.js';
import { toolErrorLine } from '../../devkit/tool-error.js';

const text = (r: any) => (r.content as { text: string }[])[0]!.text;
/**
 * Calls through a stdio child: fingerprints and delegated scopes, the
 * 16-call pending bound, invalid and stale results, the arguments bound.
 * How a call is cancelled is serve-stdio-cancel.test.ts.
 */

async function fingerprints(d: Daemon): Promise<Record<string, string>> {
  const res = await operatorCall(d, 'GET', '/api/v1/client-tools');
  return Object.fromEntries(
    JSON.parse(res.body).data.tools.map((x: any) => [x.name, x.fingerprint]),
  );
}

async function saveScope(
  d: Daemon,
  agent: Agent,
  thread: string,
  task: string,
  tools: { name: string; fingerprint: string }[],
) {
  const res = await operatorCall(
    d,
    'PUT',
    `/api/v1/client-tools/scopes/${agent.authorizationId}/${thread}`,
    { task_id: task, tools },
  );
  assert.equal(res.status, 200, res.body);
}

test('serve --stdio calls: pending bound, delegated threads and scopes, stale and invalid results, payload limit', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const app: StdioApp = spawnServe(d);
  t.after(() => app.close());
  const tool = {
    name: 'client__work',
    description: 'Does some work.',
    input_schema: { type: 'object' },
  };
  const init = await app.init([tool, lookupTool()]);
  assert.ok(init.result, JSON.stringify(init));
  const a1 = await connectAgent(d, 'a1', { primaryThreadId: 'main' });
  // A hand-granted scope names a task of the store, never a typed label.
  const created = await operatorCall(d, 'POST', '/api/v1/servers/local/writes/task/create', {
    title: 'delegated work',
  });
  assert.equal(created.status, 200, created.body);
  const task1: string = JSON.parse(created.body).data.task.id;
  const other = await operatorCall(d, 'POST', '/api/v1/servers/local/writes/task/create', {
    title: 'other delegated work',
  });
  const task9: string = JSON.parse(other.body).data.task.id;
  const a2 = await connectAgent(d, 'a2', { primaryThreadId: 'main' });
  t.after(() => a1.close());
  t.after(() => a2.close());
  const fps = await fingerprints(d);

  await t.test(
    'fingerprint vectors: the operator view equals SHA-256 of the canonical effective descriptor (default timeout included)',
    () => {
      assert.equal(fps.client__work, toolFingerprint({ ...tool, timeout_ms: 30000 }));
      assert.notEqual(
        fps.client__work,
        toolFingerprint(tool),
        'the defaulted timeout is part of the descriptor',
      );
    },
  );

  await t.test(
    'a scope is saved for any authorization id the daemon issues (base64url: it may begin with - or _); malformed ids are refused',
    async () => {
      for (const id of ['-abcdefghijklmno', '_abcdefghijklmno', 'Zabcdefghijklm-_']) {
        const res = await operatorCall(d, 'PUT', `/api/v1/client-tools/scopes/${id}/t1`, {
          task_id: task1,
          tools: [],
        });
        assert.equal(res.status, 200, `${id}: ${res.body}`);
      }
      for (const [id, thread] of [
        ['short', 't1'],
        ['-abcdefghijklmnop', 't1'],
        ['abc.defghijklmnop', 't1'],
        ['-abcdefghijklmno', '-t1'],
      ]) {
        const res = await operatorCall(d, 'PUT', `/api/v1/client-tools/scopes/${id}/${thread}`, {
          task_id: task1,
          tools: [],
        });
        assert.equal(res.status, 400, `${id}/${thread}: ${res.body}`);
      }
      const label = await operatorCall(
        d,
        'PUT',
        '/api/v1/client-tools/scopes/-abcdefghijklmno/t1',
        {
          task_id: 'task-1',
          tools: [],
        },
      );
      assert.equal(label.status, 400, label.body);
      assert.match(label.body, /not a task of the store/);
    },
  );

  await t.test(
    'a delegated thread without a saved scope, or with a stale fingerprint, is refused; the current fingerprint passes',
    async () => {
      const none = await callFrom(a1, 'client__work', {}, 't1');
      assert.equal(none.isError, true);
      assert.match(text(none), /forbidden|delegated/);
      await saveScope(d, a1, 't1', task1, [
        { name: 'client__work', fingerprint: toolFingerprint({ ...tool, timeout_ms: 29999 }) },
      ]);
      const stale = await callFrom(a1, 'client__work', {}, 't1');
      assert.equal(stale.isError, true);
      assert.match(text(stale), /forbidden|delegated/);
      await saveScope(d, a1, 't1', task1, [
        { name: 'client__work', fingerprint: fps.client__work! },
      ]);
      const ok = callFrom(a1, 'client__work', { n: 1 }, 't1');
      const call = await app.nextCall();
      assert.equal(call.params.data.task_id, task1);
      assert.equal(call.params.data.subagent_id, 't1');
      assert.equal(call.params.data.session_id, a1.sessionId, 'session and run stay root-scoped');
      assert.equal(call.params.data.run_id, a1.runId);
      await app.answer(call, { text: 'done' });
      assert.equal(text(await ok), 'done');
      // The scope names client__work only: the other tool stays closed to this thread.
      const other = await callFrom(a1, 'client__lookup_record', { record_id: 'x' }, 't1');
      assert.equal(other.isError, true);
    },
  );

  await t.test(
    '16 pending calls from primary and delegated threads of several runtimes hold; the 17th fails at once with client_tool_busy',
    async () => {
      await saveScope(d, a2, 't9', task9, [
        { name: 'client__work', fingerprint: fps.client__work! },
      ]);
      const calls: Promise<any>[] = [];
      for (let i = 0; i < 6; i++) calls.push(callFrom(a1, 'client__work', { i }));
      for (let i = 6; i < 10; i++) calls.push(callFrom(a1, 'client__work', { i }, 't1'));
      for (let i = 10; i < 13; i++) calls.push(callFrom(a2, 'client__work', { i }));
      for (let i = 13; i < 16; i++) calls.push(callFrom(a2, 'client__work', { i }, 't9'));
      const frames = [];
      for (let i = 0; i < 16; i++) frames.push(await app.nextCall());
      const started = Date.now();
      const busy = await callFrom(a2, 'client__work', { i: 16 });
      assert.ok(Date.now() - started < 2000, 'promptly');
      assert.equal(busy.isError, true);
      assert.match(toolErrorLine(busy), /^client_tool_busy: /);
      await assert.rejects(app.nextCall(300), 'the 17th call never reached the app');
      const delegated = frames
        .filter((f) => f.params.data.subagent_id !== null)
        .map((f) => [f.params.data.task_id, f.params.data.subagent_id, f.params.data.session_id]);
      assert.equal(delegated.length, 7);
      assert.deepEqual(
        new Set(delegated.map((x) => x.join('/'))),
        new Set([`${task1}/t1/${a1.sessionId}`, `${task9}/t9/${a2.sessionId}`]),
      );
      // Answer in reverse order: every agent gets its own answer.
      for (const f of [...frames].reverse())
        await app.answer(f, { text: `n${f.params.data.arguments.i}` });
      const results = await Promise.all(calls);
      assert.deepEqual(
        results.map(text),
        results.map((_, i) => `n${i}`),
      );
    },
  );

  await t.test(
    'invalid results return invalid_params without consuming the call; stale cases; duplicate ids',
    async () => {
      const pending = callFrom(a1, 'client__work', {});
      const call = await app.nextCall();
      const bad = await app.answer(call, { status: 'bogus' as any, text: 'x' });
      assert.equal(bad.error.data.code, 'invalid_params');
      const big = await app.answer(call, { text: 'x'.repeat(32_768 - 4), structured: 'abcd' });
      assert.equal(
        big.error.data.code,
        'invalid_params',
        'result_bytes counts text plus structured',
      );
      const missing = await app.request('client.tool.result', {
        ...call.params.data,
        instance_id: call.params.instance_id,
        status: 'success',
      });
      assert.equal(
        missing.error.data.code,
        'invalid_params',
        'text is required (and name/arguments are not result fields)',
      );
      for (const [field, value] of [
        ['instance_id', 'c_other'],
        ['call_id', '00000000-0000-4000-8000-000000000000'],
        ['session_id', a2.sessionId],
        ['run_id', null],
        ['task_id', task9],
        ['subagent_id', 't1'],
      ] as const) {
        const r = await app.answer(call, { text: 'x' }, { [field]: value });
        assert.equal(r.error?.data?.code, 'stale_client_tool_call', `${field} mismatch`);
      }
      const atLimit = await app.answer(call, { text: 'x'.repeat(32_768 - 6), structured: 'abcd' });
      assert.deepEqual(
        atLimit.result,
        { accepted: true },
        'the call survived every refusal; 32768 bytes is within the limit',
      );
      assert.equal(text(await pending).length, 32_768 - 6);
      const again = await app.answer(call, { text: 'x' });
      assert.equal(
        again.error.data.code,
        'stale_client_tool_call',
        'a repeated result under a fresh id is stale',
      );
      app.send({ jsonrpc: '2.0', id: 'dup', method: 'client.tool.result', params: {} });
      const first = await app.next((f) => f.id === 'dup');
      assert.equal(first.error.data.code, 'invalid_params');
      app.send({ jsonrpc: '2.0', id: 'dup', method: 'client.tool.result', params: {} });
      const dup = await app.next((f) => f.id === 'dup' && f !== first);
      assert.equal(dup.error.data.code, 'duplicate_id');
    },
  );

  await t.test(
    'arguments_bytes: 16384 compact bytes go out, 16385 fail locally with client_tool_payload_limit',
    async () => {
      const at = callFrom(a1, 'client__work', { s: 'y'.repeat(16_384 - 8) });
      const call = await app.nextCall();
      assert.equal(Buffer.byteLength(JSON.stringify(call.params.data.arguments)), 16_384);
      await app.answer(call, { text: 'ok' });
      assert.equal(text(await at), 'ok');
      const past = await callFrom(a1, 'client__work', { s: 'y'.repeat(16_384 - 7) });
      assert.equal(past.isError, true);
      assert.match(toolErrorLine(past), /^client_tool_payload_limit: /);
      await assert.rejects(app.nextCall(300));
    },
  );
});

test('serve --stdio scopes: a tool that changed (a new timeout) or was withdrawn is unavailable to a delegated thread', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const agent = await connectAgent(d, 'a1', { primaryThreadId: 'main' });
  t.after(() => agent.close());
  const first = spawnServe(d);
  assert.ok((await first.init([lookupTool('client__x')])).result);
  const before = (await fingerprints(d)).client__x!;
  const created = await operatorCall(d, 'POST', '/api/v1/servers/local/writes/task/create', {
    title: 'kid work',
  });
  const task7: string = JSON.parse(created.body).data.task.id;
  await saveScope(d, agent, 'kid', task7, [{ name: 'client__x', fingerprint: before }]);
  const ok = callFrom(agent, 'client__x', { record_id: '1' }, 'kid');
  await first.answer(await first.nextCall(), { text: 'yes' });
  assert.equal(text(await ok), 'yes');
  assert.equal(await first.close(), 0);
  const gone = await callFrom(agent, 'client__x', { record_id: '1' }, 'kid');
  assert.equal(gone.isError, true, 'withdrawn');
  const second = spawnServe(d);
  t.after(() => second.close());
  assert.ok((await second.init([lookupTool('client__x', { timeout_ms: 30001 })])).result);
  const after = (await fingerprints(d)).client__x!;
  assert.notEqual(after, before);
  const changed = await callFrom(agent, 'client__x', { record_id: '1' }, 'kid');
  assert.equal(changed.isError, true);
  assert.match(text(changed), /delegated/);
  await assert.rejects(second.nextCall(300), 'the changed tool was never called');
  const primary = callFrom(agent, 'client__x', { record_id: '1' });
  await second.answer(await second.nextCall(), { text: 'primary' });
  assert.equal(text(await primary), 'primary', 'the primary thread uses the current registry');
});
