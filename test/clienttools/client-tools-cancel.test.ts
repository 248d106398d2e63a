import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import { connectAgent, connectApp, echoTool, waitUntil } from '../../devkit/client-tools.js';
import { fakeTimeDaemon } from '../../devkit/fake-time-daemon.js';

/**
 * A parked client-tool call ends with its agent: the run ending (its lease
 * closes) or the agent no longer waiting (its tools/call request closes,
 * under either MCP revision, a hand-off included) cancels it, the app is
 * told `client_tool.cancelled`, and the admission slot comes back.
 */
test('client tools: a call is cancelled when its agent stops, and its slot comes back', async (t) => {
  const { d } = await fakeTimeDaemon(t);
  const app = await connectApp(d);
  t.after(() => app.close());
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  assert.equal(
    (
      await app.register('g', [
        echoTool('g_quick', { timeout_s: 1 }),
        echoTool('g_handoff', { timeout_s: 0 }),
        echoTool('g_plain'),
      ])
    ).status,
    200,
  );

  await t.test(
    "an agent's run ending (its lease closes) cancels its calls: client_tool.cancelled",
    async () => {
      const short = await connectAgent(d, 'a2');
      const call = short.client
        .callTool({ name: 'g_plain', arguments: { text: 'bye' } })
        .catch((e: unknown) => e);
      const req = await app.next<{ request_id: string }>(
        (f) =>
          f.type === 'client_tool.request' &&
          (f.data.arguments as { text?: string })?.text === 'bye',
      );
      await app.claim(req.data.request_id);
      await short.close(); // what `agentteam run` does when its command exits
      const cancelled = await app.next(
        (f) => f.type === 'client_tool.cancelled' && f.data.request_id === req.data.request_id,
      );
      assert.equal(cancelled.data.reason, 'agent_stopped');
      assert.equal(
        (await app.answer(req.data.request_id, { ok: true, content: [] })).body.error.code,
        'already_settled',
      );
      await call;
    },
  );

  await t.test(
    'an agent that stops waiting (its request closes) cancels the parked call; the admission slot comes back',
    async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'g_handoff', arguments: { text: 'walk away' } },
      });
      const req = request(agent.mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${agent.token()}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('error', () => undefined);
      req.end(body);
      const f = await app.next<{ request_id: string }>(
        (x) =>
          x.type === 'client_tool.request' &&
          (x.data.arguments as { text?: string })?.text === 'walk away',
      );
      req.destroy();
      const cancelled = await app.next(
        (x) => x.type === 'client_tool.cancelled' && x.data.request_id === f.data.request_id,
      );
      assert.equal(cancelled.data.reason, 'agent_stopped');
      const status = await app.call('GET', '/api/v1/status');
      await waitUntil(
        async () => (await app.call('GET', '/api/v1/status')).body.data.inFlight === 0,
      );
      assert.equal(status.status, 200);
    },
  );

  await t.test(
    'a 2026-07-28 tools/call whose request closes is cancelled the same way (timeout_s: 0 included); the slot comes back',
    async () => {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'close-test', version: '1.0.0' },
      };
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 10,
        method: 'tools/call',
        params: { name: 'g_handoff', arguments: { text: 'walk away 2026' }, _meta: meta },
      });
      const req = request(agent.mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${agent.token()}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'g_handoff',
        },
      });
      req.on('error', () => undefined);
      req.end(body);
      const f = await app.next<{ request_id: string }>(
        (x) =>
          x.type === 'client_tool.request' &&
          (x.data.arguments as { text?: string })?.text === 'walk away 2026',
      );
      assert.equal(
        (await app.call('GET', '/api/v1/status')).body.data.inFlight,
        1,
        'the parked call holds its slot while the caller waits',
      );
      req.destroy();
      const cancelled = await app.next(
        (x) => x.type === 'client_tool.cancelled' && x.data.request_id === f.data.request_id,
      );
      assert.equal(cancelled.data.reason, 'agent_stopped');
      await waitUntil(
        async () => (await app.call('GET', '/api/v1/status')).body.data.inFlight === 0,
      );
      assert.equal((await app.claim(f.data.request_id)).body.error.code, 'unknown_request');
    },
  );
});
