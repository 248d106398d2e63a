import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import {
  bindRevisions,
  legacyCodec,
  type McpHandler,
  type RevisionCodec,
} from '../../daemon/mcp/codec.js';
import { modernCodec } from '../../daemon/mcp/modern.js';
import { rpc, type RawResponse } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';

const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'codec-test', version: '1.0.0' },
};

const noAnswer = (): Response => new Response(null, { status: 500 });
const handler: McpHandler = () => '{}';

test('each revision is a view of the one handler map, checked at start-up', () => {
  const legacy = legacyCodec(noAnswer);
  const modern = modernCodec({ name: 'agentteam' });
  assert.deepEqual([...legacy.methods].sort(), ['initialize', 'ping', 'tools/call', 'tools/list']);
  assert.deepEqual([...modern.methods].sort(), [
    'server/discover',
    'subscriptions/listen',
    'tools/call',
    'tools/list',
  ]);

  const all = new Map<string, McpHandler>(
    [...legacy.methods, ...modern.methods].map((m) => [m, handler]),
  );
  const [l, m] = bindRevisions(all, [legacy, modern]);
  // A method one revision lacks is absent from its view, though the map has a handler for it.
  assert.equal(l!.handlers.get('server/discover'), undefined);
  assert.equal(m!.handlers.get('ping'), undefined);
  assert.equal(
    m!.handlers.get('tools/call'),
    l!.handlers.get('tools/call'),
    'both revisions call the same tools/call handler',
  );

  const missing = new Map(all);
  missing.delete('subscriptions/listen');
  assert.throws(
    () => bindRevisions(missing, [legacy, modern]),
    /subscriptions\/listen has no handler/,
  );
  const stray = new Map(all).set('resources/list', handler);
  assert.throws(
    () => bindRevisions(stray, [legacy, modern]),
    /resources\/list is served by no revision/,
  );
  const only2025: RevisionCodec[] = [legacy];
  assert.throws(() => bindRevisions(all, only2025), /served by no revision/);
});

test('the 2026 codec adds resultType and the server identity to every result, cache hints to cacheable ones', () => {
  const modern = modernCodec({ name: 'agentteam' });
  const call = JSON.parse(modern.result(1, 'tools/call', '{"content":[],"isError":false}')) as {
    result: Record<string, unknown>;
  };
  assert.deepEqual(call.result, {
    content: [],
    isError: false,
    resultType: 'complete',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'agentteam' } },
  });
  for (const method of ['tools/list', 'server/discover']) {
    const first = modern.result(2, method, '{}');
    assert.deepEqual(JSON.parse(first).result, {
      resultType: 'complete',
      ttlMs: 10_000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'agentteam' } },
    });
    assert.equal(modern.result(2, method, '{}'), first, 'the cached splice gives the same bytes');
  }
  // The 2025 codec leaves results as the handler wrote them.
  assert.equal(
    legacyCodec(noAnswer).result(3, 'tools/list', '{"tools":[]}'),
    '{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}',
  );
});

test('over HTTP: one handler serves both revisions, which differ only by what their codecs add', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const body = (r: RawResponse) =>
    JSON.parse(r.body) as {
      result?: Record<string, unknown>;
      error?: { code: number; message: string };
    };
  const modern = (id: number, method: string, params: Record<string, unknown> = {}) => {
    const headers: Record<string, string> = { 'mcp-protocol-version': V, 'mcp-method': method };
    if (method === 'tools/call') headers['mcp-name'] = String(params.name);
    return rpc(
      rt.mcpUrl,
      rt.token(),
      { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } },
      headers,
    );
  };
  const legacy = (id: number, method: string, params: Record<string, unknown> = {}) =>
    rpc(
      rt.mcpUrl,
      rt.token(),
      { jsonrpc: '2.0', id, method, params },
      { 'mcp-protocol-version': '2025-11-25' },
    );
  const added = {
    resultType: 'complete',
    _meta: {
      'io.modelcontextprotocol/serverInfo': {
        name: 'agentteam',
        title: 'AgentTeam',
        version: '0.1.0',
      },
    },
  };

  await t.test(
    'tools/list and tools/call: the 2026 result is the 2025 result plus the revision fields',
    async () => {
      const l2025 = body(await legacy(1, 'tools/list')).result!;
      const l2026 = body(await modern(2, 'tools/list')).result!;
      assert.deepEqual(l2026, { ...l2025, ...added, ttlMs: 10_000, cacheScope: 'private' });
      const args = { target: 'channel:general' };
      const c2025 = body(
        await legacy(3, 'tools/call', { name: 'message_history_read', arguments: args }),
      ).result!;
      const c2026 = body(
        await modern(4, 'tools/call', { name: 'message_history_read', arguments: args }),
      ).result!;
      assert.equal(c2025.isError, false);
      assert.deepEqual(c2026, { ...c2025, ...added });
    },
  );

  await t.test(
    'a method of the other revision is not found, though the map has its handler',
    async () => {
      for (const method of ['server/discover', 'subscriptions/listen']) {
        const r = await legacy(5, method);
        assert.equal(r.status, 200, method);
        assert.deepEqual(body(r).error, { code: -32601, message: `Method not found: ${method}` });
      }
      const ping = await modern(6, 'ping');
      assert.equal(ping.status, 404);
      assert.deepEqual(body(ping).error, { code: -32601, message: 'Method not found: ping' });
    },
  );

  await t.test('a call the host refuses is the same JSON-RPC error on both revisions', async () => {
    for (const send of [legacy, modern]) {
      const r = await send(7, 'tools/call', { name: 'no_such_tool', arguments: {} });
      assert.equal(r.status, 200);
      assert.deepEqual(JSON.parse(r.body), {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: 'Unknown tool: no_such_tool' },
      });
    }
  });
});
