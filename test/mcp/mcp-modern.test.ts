import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { rpc, type RawResponse } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';

const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'modern-test', version: '1.0.0' },
};

/** A 2026-07-28 request with the revision's standard headers, as a conforming client sends it. */
function modern(
  url: string,
  token: string,
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const std: Record<string, string> = { 'mcp-protocol-version': V, 'mcp-method': method };
  if (method === 'tools/call') std['mcp-name'] = String(params.name);
  return rpc(
    url,
    token,
    { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } },
    { ...std, ...headers },
  );
}

function parsed(r: RawResponse): {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
} {
  return JSON.parse(r.body) as never;
}

interface ListenStream {
  /** Each SSE event's data as parsed JSON, with when it arrived. */
  readonly events: { at: number; msg: Record<string, any> }[];
  /** Resolves with the status and content type once the server ends the stream. */
  readonly ended: Promise<{ status: number; type: string }>;
  close(): void;
}

/** Opens a 2026 subscriptions/listen stream and collects its events; `onEvent` sees each one as it arrives. */
function openListen(
  url: string,
  token: string,
  id: string | number,
  notifications: Record<string, unknown>,
  onEvent: (n: number) => void = () => undefined,
): ListenStream {
  const events: ListenStream['events'] = [];
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications, _meta: META },
  });
  let req!: ReturnType<typeof request>;
  const ended = new Promise<{ status: number; type: string }>((resolve, reject) => {
    req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': V,
          'mcp-method': 'subscriptions/listen',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        let buf = '';
        res.on('data', (c: Buffer) => {
          buf += c.toString();
          for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
            const data = buf
              .slice(0, i)
              .split('\n')
              .find((l) => l.startsWith('data: '));
            buf = buf.slice(i + 2);
            if (!data) continue;
            events.push({ at: Date.now(), msg: JSON.parse(data.slice(6)) as Record<string, any> });
            onEvent(events.length);
          }
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']) }),
        );
        res.on('error', () => undefined);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  ended.catch(() => undefined);
  return { events, ended, close: () => req.destroy() };
}

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
      const client = new Client({ name: 'legacy', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${rt.token()}` } },
        }),
      );
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

  await t.test(
    'subscriptions/listen acknowledges, stays open, and ends gracefully when the runtime is revoked',
    async () => {
      const rt2 = await startRuntime(d, { server: 'local', agent: 'a2' });
      // Once acknowledged, the runtime is revoked: the server must end the subscription gracefully.
      const sub = openListen(
        rt2.mcpUrl,
        rt2.token(),
        'sub-1',
        { toolsListChanged: true, promptsListChanged: true },
        (n) => {
          if (n === 1) void rt2.close();
        },
      );
      const { status, type } = await sub.ended;
      const frames = sub.events.map((e) => JSON.stringify(e.msg));
      assert.equal(status, 200);
      assert.match(type, /text\/event-stream/);
      const ack = JSON.parse(frames[0]!) as {
        method: string;
        params: { notifications: Record<string, unknown>; _meta: Record<string, unknown> };
      };
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.deepEqual(
        ack.params.notifications,
        { toolsListChanged: true },
        'only what the server honours is acknowledged',
      );
      assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 'sub-1');
      const last = JSON.parse(frames.at(-1)!) as {
        id: string;
        result: { resultType: string; _meta: Record<string, unknown> };
      };
      assert.equal(last.id, 'sub-1', 'the server answered the listen request before closing');
      assert.equal(last.result.resultType, 'complete');
      assert.equal(last.result._meta['io.modelcontextprotocol/subscriptionId'], 'sub-1');
    },
  );
});

test('MCP 2026-07-28: an app registering a tool reaches a subscriptions/listen stream within 1.5 s', async (t) => {
  const { connectApp, echoTool } = await import('../../devkit/client-tools.js');
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  let acked!: () => void;
  const ack = new Promise<void>((r) => (acked = r));
  const sub = openListen(
    rt.mcpUrl,
    rt.token(),
    7,
    { toolsListChanged: true },
    (n) => n === 1 && acked(),
  );
  t.after(() => sub.close());
  const events = sub.events;
  await ack;

  const app = await connectApp(d);
  t.after(() => app.close());
  const registeredAt = Date.now();
  const reg = await app.register('editor', [echoTool('app_echo')]);
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const deadline = registeredAt + 1_500;
  while (
    !events.some((e) => e.msg.method === 'notifications/tools/list_changed') &&
    Date.now() < deadline
  )
    await new Promise((r) => setTimeout(r, 20));
  const notice = events.find((e) => e.msg.method === 'notifications/tools/list_changed');
  assert.ok(
    notice,
    `no list_changed within 1.5 s; saw ${JSON.stringify(events.map((e) => e.msg.method))}`,
  );
  assert.ok(notice.at - registeredAt <= 1_500);
  assert.equal(notice.msg.params?._meta?.['io.modelcontextprotocol/subscriptionId'], 7);

  const list = await modern(rt.mcpUrl, rt.token(), 8, 'tools/list');
  const names = (
    JSON.parse(list.body) as { result: { tools: { name: string }[] } }
  ).result.tools.map((x) => x.name);
  assert.ok(names.includes('app_echo'), names.join(','));
});
