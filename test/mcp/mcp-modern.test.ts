import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { rpc } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import { connectMcp } from '../../devkit/mcp-client.js';
import { modern, parsed } from '../../devkit/mcp-modern.js';

test('MCP 2026-07-28 beside 2025-11-25 on the same endpoints', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const url = rt.mcpUrl;
  const legacyUrl = url.replace(
    /\/api\/internal\/mcp\/servers\/([^/]+)\/agents\/([^/]+)$/,
    '/mcp/agentteam/$1/$2',
  );

  await t.test(
    'server/discover names every revision, capabilities and identity, with cache hints',
    async () => {
      for (const u of [url, legacyUrl]) {
        const r = await modern(u, rt.token(), 1, 'server/discover');
        assert.equal(r.status, 200, r.body);
        const res = parsed(r).result!;
        assert.equal(res.resultType, 'complete');
        assert.deepEqual(res.supportedVersions, [
          '2026-07-28',
          '2025-11-25',
          '2025-06-18',
          '2025-03-26',
        ]);
        assert.deepEqual((res.serverInfo as { name: string }).name, 'agentteam');
        assert.ok(typeof res.ttlMs === 'number' && res.ttlMs >= 0);
        assert.equal(res.cacheScope, 'private');
        assert.ok('tools' in (res.capabilities as object));
      }
    },
  );

  await t.test(
    'tools/list and tools/call are served statelessly, each result with resultType',
    async () => {
      const list = await modern(url, rt.token(), 2, 'tools/list');
      assert.equal(list.status, 200, list.body);
      const res = parsed(list).result!;
      assert.equal(res.resultType, 'complete');
      assert.equal(res.cacheScope, 'private');
      assert.deepEqual(
        (res.tools as { name: string }[]).map((x) => x.name),
        MCP_TOOLS.map((x) => x.name),
      );
      assert.equal(
        (res._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']?.name,
        'agentteam',
      );

      const sent = await modern(url, rt.token(), 3, 'tools/call', {
        name: 'message_send',
        arguments: { target: 'channel:general', content: 'from 2026' },
      });
      assert.equal(sent.status, 200, sent.body);
      const call = parsed(sent).result!;
      assert.equal(call.resultType, 'complete');
      assert.equal(call.isError, false, sent.body);

      const read = await modern(url, rt.token(), 4, 'tools/call', {
        name: 'message_history_read',
        arguments: { target: 'channel:general' },
      });
      const page = parsed(read).result!.structuredContent as { messages: { content: string }[] };
      assert.equal(page.messages[0]?.content, 'from 2026');
    },
  );

  await t.test(
    'a 2025-11-25 client on the same route is unchanged (official SDK client)',
    async () => {
      const client = await connectMcp(url, rt.token(), {}, 'legacy');
      try {
        const { tools } = await client.listTools();
        assert.equal(tools.length, MCP_TOOLS.length);
        const r = await client.callTool({
          name: 'message_history_read',
          arguments: { target: 'channel:general' },
        });
        assert.notEqual(r.isError, true);
        assert.equal(
          (r as Record<string, unknown>).resultType,
          undefined,
          'legacy results keep the 2025 shape',
        );
      } finally {
        await client.close();
      }
    },
  );

  await t.test('the revision is read from each request, never from an earlier one', async () => {
    // A modern discover first, then a legacy ping with no _meta: still legacy.
    await modern(url, rt.token(), 5, 'server/discover');
    const ping = await rpc(url, rt.token(), { jsonrpc: '2.0', id: 6, method: 'ping' });
    assert.equal(ping.status, 200);
    assert.deepEqual(parsed(ping).result, {});
    // ping does not exist in 2026-07-28.
    const modernPing = await modern(url, rt.token(), 7, 'ping');
    assert.equal(modernPing.status, 404);
    assert.equal(parsed(modernPing).error?.code, -32601);
  });
});
