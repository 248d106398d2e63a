import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { operatorCall } from '../../devkit/http.js';
import { connectAgent, waitUntil } from '../../devkit/client-tools.js';
import { lookupTool, spawnServe } from '../../devkit/serve-stdio.js';
import { toolErrorLine } from '../../devkit/tool-error.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('serve --stdio end to end: a test app spawns the real child, negotiates, and serves a call an agent makes through the official MCP SDK client', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const app = spawnServe(d);
  t.after(() => app.close());

  const init = await app.init([lookupTool(), lookupTool('client__slow', { timeout_ms: 1500 })]);
  assert.ok(init.result, JSON.stringify(init));
  const r = init.result;
  assert.deepEqual(r.capabilities, ['client.tools']);
  assert.deepEqual(
    r.client_tools.tools,
    ['client__lookup_record', 'client__slow'],
    'names keep registration order',
  );
  assert.equal(r.client_tools.limits.pending_calls, 16);
  assert.deepEqual(r.extensions['client.tools'], {
    schema_version: 1,
    registration: 'startup_only',
    tools: r.client_tools.tools,
    limits: r.client_tools.limits,
  });
  assert.match(r.instance_id, /^c_/);

  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());

  await t.test('the agent lists the tools with their schemas', async () => {
    const { tools } = await agent.client.listTools();
    const tool = tools.find((x) => x.name === 'client__lookup_record');
    assert.ok(tool);
    assert.deepEqual(tool.inputSchema, lookupTool().input_schema);
  });

  await t.test(
    'a call goes out as client.tool.call with exactly the seed fields; the result comes back and the agent gets it',
    async () => {
      const pending = agent.client.callTool({
        name: 'client__lookup_record',
        arguments: { record_id: 'example' },
      });
      const call = await app.nextCall();
      assert.deepEqual(Object.keys(call), ['jsonrpc', 'method', 'params']);
      assert.equal(call.params.instance_id, r.instance_id);
      assert.deepEqual(Object.keys(call.params.data), [
        'session_id',
        'run_id',
        'call_id',
        'task_id',
        'subagent_id',
        'name',
        'arguments',
        'timeout_ms',
      ]);
      assert.match(call.params.data.call_id, UUID);
      // The lease's own session and run, minted by the daemon: nobody typed them.
      assert.match(agent.sessionId, /^ses_[\w-]{20}$/);
      assert.match(agent.runId, /^run_[\w-]{20}$/);
      assert.deepEqual(
        { ...call.params.data, call_id: 'x' },
        {
          session_id: agent.sessionId,
          run_id: agent.runId,
          call_id: 'x',
          task_id: null,
          subagent_id: null,
          name: 'client__lookup_record',
          arguments: { record_id: 'example' },
          timeout_ms: 30000,
        },
      );
      const ack = await app.answer(call, {
        status: 'success',
        text: 'Record found.',
        structured: { found: true },
      });
      assert.deepEqual(ack.result, { accepted: true });
      const result = await pending;
      assert.notEqual(result.isError, true);
      assert.deepEqual(result.content, [
        { type: 'text', text: 'Record found.' },
        { type: 'text', text: '{"found":true}' },
      ]);
      assert.deepEqual(result.structuredContent, { found: true });
    },
  );

  await t.test(
    'an error status is tool output marked as an error; explicit null structured is kept apart from omission',
    async () => {
      const pending = agent.client.callTool({
        name: 'client__lookup_record',
        arguments: { record_id: 'nope' },
      });
      const call = await app.nextCall();
      assert.deepEqual(
        (await app.answer(call, { status: 'error', text: 'No such record.', structured: null }))
          .result,
        { accepted: true },
      );
      const result = await pending;
      assert.equal(result.isError, true);
      assert.deepEqual(result.content, [
        { type: 'text', text: 'No such record.' },
        { type: 'text', text: 'null' },
      ]);
      assert.equal(result.structuredContent, undefined);
      const p2 = agent.client.callTool({
        name: 'client__lookup_record',
        arguments: { record_id: 'e' },
      });
      const c2 = await app.nextCall();
      await app.answer(c2, { text: '' });
      assert.deepEqual(
        (await p2).content,
        [{ type: 'text', text: '' }],
        'empty text, no structured: one block',
      );
    },
  );

  await t.test(
    'each call gets a fresh call UUID; a millisecond timeout survives registration exactly',
    async () => {
      const list = await operatorCall(d, 'GET', '/api/v1/client-tools');
      const tools = JSON.parse(list.body).data.tools;
      assert.equal(tools.find((x: any) => x.name === 'client__slow').timeout_ms, 1500);
      const a = agent.client.callTool({ name: 'client__slow', arguments: {} });
      const b = agent.client.callTool({ name: 'client__slow', arguments: {} });
      const [ca, cb] = [await app.nextCall(), await app.nextCall()];
      assert.notEqual(ca.params.data.call_id, cb.params.data.call_id);
      assert.equal(ca.params.data.timeout_ms, 1500);
      // Out of order: the second call is answered first.
      await app.answer(cb, { text: 'second' });
      await app.answer(ca, { text: 'first' });
      const [ra, rb] = await Promise.all([a, b]);
      assert.deepEqual(
        [ra.content, rb.content],
        [[{ type: 'text', text: 'first' }], [{ type: 'text', text: 'second' }]],
      );
    },
  );

  await t.test('a second initialize is refused: registration is startup only', async () => {
    const again = await app.init([lookupTool('client__other')]);
    assert.equal(again.error?.data?.code, 'invalid_request');
  });

  await t.test('stdin closing ends the child and withdraws its tools', async () => {
    const pending = agent.client.callTool({
      name: 'client__lookup_record',
      arguments: { record_id: 'late' },
    });
    await app.nextCall();
    assert.equal(await app.close(), 0);
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(toolErrorLine(result), /^no_client: /);
    await waitUntil(
      async () =>
        !(await agent.client.listTools()).tools.some((x) => x.name === 'client__lookup_record'),
    );
  });
});

test('serve --stdio: without negotiation client.tool.result is unsupported_method; client_tools is forbidden without client.tools', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const app = spawnServe(d);
  t.after(() => app.close());
  const before = await app.request('client.tool.result', {});
  assert.equal(before.error.data.code, 'unsupported_method');
  assert.equal(before.error.code, -32601);
  const forbidden = await app.request('initialize', {
    required_capabilities: [],
    client_tools: [],
  });
  assert.equal(forbidden.error.data.code, 'invalid_params');
  const nulls = await app.request('initialize', { required_capabilities: [], client_tools: null });
  assert.equal(nulls.error.data.code, 'invalid_params');
  const plain = await app.request('initialize', { required_capabilities: [] });
  assert.deepEqual(
    plain.result,
    { capabilities: [] },
    'no client.tools in capabilities, no client_tools, no extension',
  );
  const after = await app.request('client.tool.result', { instance_id: 'x' });
  assert.equal(after.error.data.code, 'unsupported_method');
  const unknown = await app.request('tools/list', {});
  assert.equal(unknown.error.data.code, 'unsupported_method');
});

test("serve --stdio --server S: only that server's agents may call the tools", async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const app = spawnServe(d, ['--server', 'other']);
  t.after(() => app.close());
  assert.ok((await app.init([lookupTool()])).result);
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  const res = await agent.client.callTool({
    name: 'client__lookup_record',
    arguments: { record_id: 'x' },
  });
  assert.equal(res.isError, true);
  assert.match(toolErrorLine(res), /^no_client: .*server other/);
});

test('serve --stdio without a running daemon: initialize answers unavailable and the child stays usable', async (t) => {
  const d = await startDaemon();
  await d.cli(['daemon', 'stop']);
  t.after(() => d.close());
  const app = spawnServe(d);
  t.after(() => app.close());
  const res = await app.init([lookupTool()]);
  assert.equal(res.error.data.code, 'unavailable');
  const plain = await app.request('initialize', { required_capabilities: [] });
  assert.deepEqual(plain.result, { capabilities: [] });
});
