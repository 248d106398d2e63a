import { test } from 'node:test';
import { request } from 'node:http';
import { strict as assert } from 'node:assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openLease } from '../../devkit/lease.js';
import { startDaemon } from '../../devkit/daemon.js';
import { callFrom, connectAgent } from '../../devkit/client-tools.js';
import { lookupTool, spawnServe } from '../../devkit/serve-stdio.js';
import { toolErrorLine } from '../../devkit/tool-error.js';

/**
 * How a stdio call ends other than by its result: the absolute timeout (a
 * late result is stale), the calling run finishing, the agent no longer
 * waiting, the daemon stopping; each reaches the child as
 * `client.tool.cancel` with the contract's reason.
 */

test('serve --stdio cancellation: timeout (absolute, late result stale), run_finished, shutdown', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const app = spawnServe(d);
  t.after(() => app.close());
  assert.ok(
    (
      await app.init([
        lookupTool('client__quick', { timeout_ms: 1000 }),
        lookupTool('client__long', { timeout_ms: 300_000 }),
      ])
    ).result,
  );
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());

  await t.test(
    'timeout: the cancel arrives with reason timeout, the agent reads timeout, the late result is stale',
    async () => {
      const started = Date.now();
      const pending = callFrom(agent, 'client__quick', { record_id: 'x' });
      const call = await app.nextCall();
      // An invalid reply does not restart the deadline.
      assert.equal(
        (await app.answer(call, { status: 'nope' as any })).error.data.code,
        'invalid_params',
      );
      const cancel = await app.next(
        (f) =>
          f.method === 'client.tool.cancel' && f.params.data.call_id === call.params.data.call_id,
        5000,
      );
      const { session_id, run_id, call_id, task_id, subagent_id } = call.params.data;
      assert.deepEqual(cancel.params, {
        instance_id: call.params.instance_id,
        data: { session_id, run_id, call_id, task_id, subagent_id, reason: 'timeout' },
      });
      const result = await pending;
      assert.ok(Date.now() - started >= 950, 'not before the deadline');
      assert.match(toolErrorLine(result), /^timeout: .*1000 ms/);
      assert.equal(
        (await app.answer(call, { text: 'late' })).error.data.code,
        'stale_client_tool_call',
      );
    },
  );

  await t.test('run_finished: the calling runtime ends while its call is pending', async (t) => {
    // The runtime's lease ends (its authorization is revoked) while its MCP client still waits.
    const lease = await openLease(d, { serverId: 'local', agentId: 'a2' });
    const client = new Client({ name: 'run-finished', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(lease.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${lease.token()}` } },
      }),
    );
    t.after(() => client.close());
    const pending = client
      .callTool({ name: 'client__long', arguments: { record_id: 'x' } })
      .catch(() => null);
    const call = await app.nextCall();
    lease.close();
    const cancel = await app.next(
      (f) =>
        f.method === 'client.tool.cancel' && f.params.data.call_id === call.params.data.call_id,
    );
    assert.equal(cancel.params.data.reason, 'run_finished');
    assert.equal(
      (await app.answer(call, { text: 'late' })).error.data.code,
      'stale_client_tool_call',
    );
    await pending;
  });

  await t.test('cancelled: the agent stops waiting (its tools/call request closes)', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'client__long', arguments: { record_id: 'walk away' } },
    });
    const req = request(agent.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.token()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('error', () => undefined);
    req.end(body);
    const call = await app.nextCall();
    assert.equal(call.params.data.arguments.record_id, 'walk away');
    req.destroy();
    const cancel = await app.next(
      (f) =>
        f.method === 'client.tool.cancel' && f.params.data.call_id === call.params.data.call_id,
    );
    assert.equal(cancel.params.data.reason, 'cancelled');
    assert.equal(
      (await app.answer(call, { text: 'late' })).error.data.code,
      'stale_client_tool_call',
    );
  });

  await t.test('shutdown: the daemon stops with a call pending; the child ends', async () => {
    const pending = callFrom(agent, 'client__long', { record_id: 'x' }).catch(() => null);
    const call = await app.nextCall();
    await d.cli(['daemon', 'stop']);
    const cancel = await app.next(
      (f) =>
        f.method === 'client.tool.cancel' && f.params.data.call_id === call.params.data.call_id,
    );
    assert.equal(cancel.params.data.reason, 'shutdown');
    assert.equal(await app.exited, 1, 'the child ends when the daemon goes away');
    assert.match(app.stderr(), /event stream/);
    await pending;
  });
});
