import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { rpc } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import { META, modern, parsed, V } from '../../devkit/mcp-modern.js';

/** What a 2026-07-28 request is refused for: missing or unsupported protocol information, headers that contradict the body, unknown methods. */
test('MCP 2026-07-28: refusals on the same endpoints', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const url = rt.mcpUrl;

  await t.test('missing _meta protocol information is -32602 with HTTP 400', async () => {
    // Header says 2026-07-28, body carries no _meta at all.
    const noMeta = await rpc(
      url,
      rt.token(),
      { jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' },
    );
    assert.equal(noMeta.status, 400);
    assert.equal(parsed(noMeta).error?.code, -32602);
    // _meta with a version but without clientCapabilities.
    const noCaps = await rpc(
      url,
      rt.token(),
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } },
      },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' },
    );
    assert.equal(noCaps.status, 400);
    assert.equal(parsed(noCaps).error?.code, -32602);
    assert.match(parsed(noCaps).error!.message, /clientCapabilities/);
  });

  await t.test(
    'an unsupported version is UnsupportedProtocolVersionError listing the supported ones',
    async () => {
      const r = await rpc(
        url,
        rt.token(),
        {
          jsonrpc: '2.0',
          id: 10,
          method: 'tools/list',
          params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
        },
        { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
      );
      assert.equal(r.status, 400);
      const err = parsed(r).error!;
      assert.equal(err.code, -32022);
      assert.deepEqual(err.data, {
        supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
        requested: '2099-01-01',
      });
    },
  );

  await t.test(
    'standard headers must be present and match the body (HeaderMismatch -32020)',
    async () => {
      const cases: [string, Record<string, string>][] = [
        ['no protocol header', { 'mcp-protocol-version': '' }],
        ['protocol header differs', { 'mcp-protocol-version': '2025-11-25' }],
        ['no Mcp-Method', { 'mcp-method': '' }],
        ['Mcp-Method differs', { 'mcp-method': 'tools/list' }],
        ['no Mcp-Name', { 'mcp-name': '' }],
        ['Mcp-Name differs', { 'mcp-name': 'message_send' }],
        ['Mcp-Name bad base64', { 'mcp-name': '=?base64?@@@?=' }],
      ];
      for (const [label, override] of cases) {
        const headers: Record<string, string> = {
          'mcp-protocol-version': V,
          'mcp-method': 'tools/call',
          'mcp-name': 'message_history_read',
          ...override,
        };
        for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
        const r = await rpc(
          url,
          rt.token(),
          {
            jsonrpc: '2.0',
            id: 11,
            method: 'tools/call',
            params: {
              name: 'message_history_read',
              arguments: { target: 'channel:general' },
              _meta: META,
            },
          },
          headers,
        );
        assert.equal(r.status, 400, `${label}: ${r.body}`);
        assert.equal(parsed(r).error?.code, -32020, label);
      }
      // The Base64 sentinel is decoded before comparison.
      const encoded = `=?base64?${Buffer.from('message_history_read').toString('base64')}?=`;
      const ok = await modern(
        url,
        rt.token(),
        12,
        'tools/call',
        { name: 'message_history_read', arguments: { target: 'channel:general' } },
        { 'mcp-name': encoded },
      );
      assert.equal(ok.status, 200, ok.body);
    },
  );

  await t.test(
    'Mcp-Method / Mcp-Name that contradict a 2025-shaped body are refused (HeaderMismatch) and nothing runs',
    async () => {
      const send = (id: number, headers: Record<string, string>) =>
        rpc(
          url,
          rt.token(),
          {
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: {
              name: 'message_send',
              arguments: { target: 'channel:hdr', content: `sent ${id}` },
            },
          },
          { 'mcp-protocol-version': '2025-11-25', ...headers },
        );
      const refused: [string, Record<string, string>][] = [
        ['Mcp-Method differs', { 'mcp-method': 'tools/list' }],
        ['Mcp-Name differs', { 'mcp-method': 'tools/call', 'mcp-name': 'message_history_read' }],
        ['Mcp-Name alone differs', { 'mcp-name': 'message_history_read' }],
        ['Mcp-Name malformed', { 'mcp-name': '=?base64?@@@?=' }],
      ];
      let id = 40;
      for (const [label, headers] of refused) {
        const r = await send(++id, headers);
        assert.equal(r.status, 400, `${label}: ${r.body}`);
        assert.equal(parsed(r).error?.code, -32020, label);
      }
      const read = async () => {
        const r = await rpc(url, rt.token(), {
          jsonrpc: '2.0',
          id: 60,
          method: 'tools/call',
          params: { name: 'message_history_read', arguments: { target: 'channel:hdr' } },
        });
        return (parsed(r).result as { structuredContent: { messages: unknown[] } })
          .structuredContent.messages.length;
      };
      assert.equal(await read(), 0, 'no refused call ran');
      // Agreeing headers, or none, are served as before.
      assert.equal(
        (await send(++id, { 'mcp-method': 'tools/call', 'mcp-name': 'message_send' })).status,
        200,
      );
      assert.equal((await send(++id, {})).status, 200);
      assert.equal(await read(), 2);
    },
  );

  await t.test('an unknown method is 404 with -32601; credentials are still required', async () => {
    const r = await modern(url, rt.token(), 13, 'prompts/list');
    assert.equal(r.status, 404);
    assert.equal(parsed(r).error?.code, -32601);
    const anon = await modern(url, 'not-a-token', 14, 'server/discover');
    assert.equal(anon.status, 403);
  });
});
