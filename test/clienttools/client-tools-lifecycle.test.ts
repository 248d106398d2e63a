import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { startDaemon as startInProcess } from '../../daemon/server.js';
import { FakeClock } from '../../devkit/auth-clock.js';
import type { Daemon } from '../../devkit/daemon.js';
import { connectAgent, connectApp, echoTool, waitUntil } from '../../devkit/client-tools.js';

/** An in-process daemon on a manual clock, so timeouts and coalescing are tested without waiting. */
async function fakeTimeDaemon(
  t: { after(fn: () => unknown): void },
  profile?: unknown,
): Promise<{ d: Daemon; clock: FakeClock; reload(): Promise<unknown> }> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-ct-'));
  if (profile !== undefined) writeFileSync(join(home, 'profile.json'), JSON.stringify(profile));
  const clock = new FakeClock(Date.now());
  const daemon = await startInProcess({ home, clock, log: () => undefined });
  const d: Daemon = {
    home,
    url: daemon.url,
    pid: process.pid,
    cli: async () => ({ code: 1, stdout: '', stderr: 'not available in process' }),
    close: async () => {
      await daemon.stop('test');
      rmSync(home, { recursive: true, force: true });
    },
  };
  t.after(() => d.close());
  return { d, clock, reload: () => daemon.reload() };
}

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text ?? '';

test('client tools over time: timeouts, handoffs, revocation, provider loss, reconnect, coalesced notices', async (t) => {
  const { d, clock } = await fakeTimeDaemon(t);
  const app = await connectApp(d);
  t.after(() => app.close());
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  await new Promise((r) => setTimeout(r, 150)); // the agent's notification stream is open
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

  await t.test('timeout_s: 1 times out as timeout, and the app is told', async () => {
    const call = agent.client.callTool({ name: 'g_quick', arguments: { text: 'q' } });
    const req = await app.next<{ request_id: string }>(
      (f) => f.type === 'client_tool.request' && f.data.tool === 'g_quick',
    );
    clock.advance(999);
    assert.equal(
      (await app.call('GET', `/api/v1/client-tools/requests?pending=1&client_id=${app.clientId}`))
        .body.data.requests.length,
      1,
    );
    clock.advance(1);
    const r = await call;
    assert.equal(r.isError, true);
    assert.match(text(r), /^timeout: /);
    const cancelled = await app.next(
      (f) => f.type === 'client_tool.cancelled' && f.data.request_id === req.data.request_id,
    );
    assert.equal(cancelled.data.reason, 'timeout');
    assert.equal((await app.claim(req.data.request_id)).body.error.code, 'unknown_request');
  });

  await t.test(
    'timeout_s: 0 still waits after 10 s (and an hour), then takes the answer',
    async () => {
      const call = agent.client.callTool({ name: 'g_handoff', arguments: { text: 'h' } });
      const req = await app.next<{ request_id: string }>(
        (f) => f.type === 'client_tool.request' && f.data.tool === 'g_handoff',
      );
      clock.advance(10_000);
      clock.advance(3_600_000);
      const listed = (
        await app.call('GET', `/api/v1/client-tools/requests?pending=1&client_id=${app.clientId}`)
      ).body.data.requests as { request_id: string }[];
      assert.deepEqual(
        listed.map((x) => x.request_id),
        [req.data.request_id],
      );
      await app.claim(req.data.request_id);
      await app.answer(req.data.request_id, {
        ok: true,
        content: [{ type: 'text', text: 'done at last' }],
      });
      assert.equal(text(await call), 'done at last');
    },
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

  await t.test('change notices are coalesced to at most one a second', async () => {
    const before = agent.changes.count;
    clock.advance(1000);
    await app.register('h', [echoTool('h_one')]);
    await waitUntil(() => agent.changes.count === before + 1);
    await app.register('h', [echoTool('h_one'), echoTool('h_two')]);
    await app.register('h', [echoTool('h_two')]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(
      agent.changes.count,
      before + 1,
      'two more changes within the second: no notice yet',
    );
    clock.advance(1000);
    await waitUntil(() => agent.changes.count === before + 2);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(agent.changes.count, before + 2, 'one notice carried both changes');
    const names = (await agent.client.listTools()).tools.map((x) => x.name);
    assert.ok(names.includes('h_two') && !names.includes('h_one'));
  });

  let again!: Awaited<ReturnType<typeof connectApp>>;
  t.after(() => again?.close());
  await t.test(
    'reconnect: a new stream of the same app lists what is still pending and serves it',
    async () => {
      const call = agent.client.callTool({
        name: 'g_plain',
        arguments: { text: 'across reconnect' },
      });
      const req = await app.next<{ request_id: string }>(
        (f) =>
          f.type === 'client_tool.request' &&
          (f.data.arguments as { text?: string })?.text === 'across reconnect',
      );
      again = await connectApp(d);
      assert.equal(
        (
          await again.register('g', [
            echoTool('g_quick', { timeout_s: 1 }),
            echoTool('g_handoff', { timeout_s: 0 }),
            echoTool('g_plain'),
          ])
        ).status,
        200,
      );
      assert.equal((await again.register('h', [echoTool('h_two')])).status, 200);
      app.close(); // the old stream goes; its group stays with the new one
      await waitUntil(
        async () =>
          !(await again.call('GET', `/api/v1/client-tools/requests?client_id=${app.clientId}`)).body
            .ok,
      );
      const pending = (
        await again.call(
          'GET',
          `/api/v1/client-tools/requests?pending=1&client_id=${again.clientId}`,
        )
      ).body.data.requests as { request_id: string; arguments: unknown }[];
      assert.deepEqual(
        pending.map((x) => [x.request_id, x.arguments]),
        [[req.data.request_id, { text: 'across reconnect' }]],
      );
      assert.equal((await again.claim(req.data.request_id)).status, 200);
      await again.answer(req.data.request_id, {
        ok: true,
        content: [{ type: 'text', text: 'served after reconnect' }],
      });
      assert.equal(text(await call), 'served after reconnect');
    },
  );

  await t.test(
    'closing the provider stream withdraws its tools and fails its pending calls within 1 s',
    async () => {
      const lost = agent.client.callTool({ name: 'g_plain', arguments: { text: 'orphan' } });
      await again.next(
        (f) =>
          f.type === 'client_tool.request' &&
          (f.data.arguments as { text?: string })?.text === 'orphan',
      );
      const closedAt = Date.now();
      again.close();
      const r = await lost;
      assert.ok(Date.now() - closedAt < 1000, `failed after ${Date.now() - closedAt} ms`);
      assert.equal(r.isError, true);
      assert.match(text(r), /^no_client: /);
      clock.advance(1000);
      await waitUntil(
        async () => !(await agent.client.listTools()).tools.some((x) => x.name === 'g_plain'),
      );
      const names = (await agent.client.listTools()).tools.map((x) => x.name);
      assert.ok(
        names.includes('app_tools') && names.includes('app_call'),
        'fallbacks stay once an app ever registered',
      );
    },
  );
});

test('client tools: denyTools per agent hides and refuses; remembered names keep it valid at boot', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-deny-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const profile = { agents: [{ id: 'a1', denyTools: ['g_secret', 'app_call'] }, { id: 'a2' }] };
  writeFileSync(join(home, 'profile.json'), JSON.stringify(profile));
  // First boot: nothing was ever registered, so g_secret names no known tool and the profile is refused.
  const logs: string[] = [];
  const first = await startInProcess({ home, log: (l) => logs.push(l) });
  assert.ok(
    logs.some((l) => l.includes('denyTools[0]') && l.includes('g_secret')),
    logs.join('\n'),
  );
  const d1: Daemon = {
    home,
    url: first.url,
    pid: process.pid,
    cli: async () => ({ code: 1, stdout: '', stderr: '' }),
    close: async () => undefined,
  };
  const app = await connectApp(d1);
  await app.register('g', [echoTool('g_secret'), echoTool('g_open')]);
  app.close();
  await first.stop('test');

  // Second boot: the name is remembered, the profile is valid before any app connects.
  const logs2: string[] = [];
  const second = await startInProcess({ home, log: (l) => logs2.push(l) });
  t.after(() => second.stop('test'));
  assert.ok(!logs2.some((l) => l.includes('denyTools')), logs2.join('\n'));
  const d: Daemon = {
    home,
    url: second.url,
    pid: process.pid,
    cli: async () => ({ code: 1, stdout: '', stderr: '' }),
    close: async () => undefined,
  };
  const app2 = await connectApp(d);
  t.after(() => app2.close());
  await app2.register('g', [echoTool('g_secret'), echoTool('g_open')]);
  const denied = await connectAgent(d, 'a1');
  t.after(() => denied.close());
  const open = await connectAgent(d, 'a2');
  t.after(() => open.close());
  const deniedNames = (await denied.client.listTools()).tools.map((x) => x.name);
  assert.ok(deniedNames.includes('g_open') && deniedNames.includes('app_tools'));
  assert.ok(
    !deniedNames.includes('g_secret') && !deniedNames.includes('app_call'),
    deniedNames.join(),
  );
  const openNames = (await open.client.listTools()).tools.map((x) => x.name);
  assert.ok(openNames.includes('g_secret') && openNames.includes('app_call'));
  await assert.rejects(
    denied.client.callTool({ name: 'g_secret', arguments: { text: 'x' } }),
    /Unknown tool: g_secret/,
  );
  await assert.rejects(
    denied.client.callTool({ name: 'app_call', arguments: { tool: 'g_secret' } }),
    /Unknown tool: app_call/,
  );
  const listed = await denied.client.callTool({ name: 'app_tools', arguments: {} });
  assert.deepEqual(
    (listed.structuredContent as { tools: { name: string }[] }).tools.map((x) => x.name),
    ['g_open'],
  );
});

test('client tools: 64 tools in one group hold and fill the daemon; the 65th anywhere is too_many_tools', async (t) => {
  const { d } = await fakeTimeDaemon(t);
  const app = await connectApp(d);
  t.after(() => app.close());
  const tools = (n: number, p: string) => Array.from({ length: n }, (_, i) => echoTool(`${p}${i}`));
  const full = await app.register('full', tools(64, 'full_'));
  assert.equal(full.status, 200, JSON.stringify(full.body));
  assert.equal(full.body.data.tools.length, 64);
  const more = await app.register('more', tools(1, 'more_'));
  assert.equal(more.body.error.code, 'too_many_tools');
  assert.match(
    more.body.error.message,
    /at most 64 client tools; 64 are registered in other groups/,
  );
  const over = await app.register('full', tools(65, 'full_'));
  assert.equal(over.body.error.code, 'too_many_tools');
  assert.match(over.body.error.message, /at most 64 tools; this one has 65/);
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  assert.equal(
    (await agent.client.listTools()).tools.filter((x) => x.name.startsWith('full_')).length,
    64,
  );
});

test('client tools: app_tools pages as many tools at their largest as the inventory budget holds, and every tool is seen once', async (t) => {
  const { d } = await fakeTimeDaemon(t);
  const app = await connectApp(d);
  t.after(() => app.close());
  // Descriptions at 2048 JSON bytes of quotes, schemas just under 8192 compact bytes: about 10 KB per entry.
  const pad = (n: number) => ({
    type: 'object',
    description: 'x'.repeat(n),
    properties: {},
    additionalProperties: false,
  });
  const base = JSON.stringify(pad(0)).length;
  const big = (i: number) =>
    echoTool(`big_${String(i).padStart(2, '0')}`, {
      description: '"'.repeat(1024),
      input_schema: pad(8192 - base),
    });
  // 64 of them would make tools/list about 650 KiB: the inventory budget (128 KiB) holds about a dozen.
  let count = 64;
  let ok = await app.register(
    'big',
    Array.from({ length: count }, (_, i) => big(i)),
  );
  while (ok.status === 413 && count > 1)
    ok = await app.register(
      'big',
      Array.from({ length: --count }, (_, i) => big(i)),
    );
  assert.equal(ok.status, 200, JSON.stringify(ok.body).slice(0, 300));
  assert.ok(count >= 10 && count < 64, `${count} maximal tools fit`);
  for (const over of [{ description: '"'.repeat(1025) }, { input_schema: pad(8193 - base) }]) {
    const r = await app.register('other', [echoTool('other_1', over)]);
    assert.equal(r.body.error.code, 'invalid_tool', JSON.stringify(r.body).slice(0, 200));
  }
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 64; pages++) {
    const r = await agent.client.callTool({
      name: 'app_tools',
      arguments: cursor ? { cursor } : {},
    });
    assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 300));
    const page = r.structuredContent as {
      tools: { name: string }[];
      hasMore: boolean;
      nextCursor?: string;
    };
    assert.ok(page.tools.length >= 1 && page.tools.length < count, 'more than one page');
    seen.push(...page.tools.map((x) => x.name));
    if (!page.hasMore) break;
    cursor = page.nextCursor;
  }
  assert.deepEqual(
    seen,
    Array.from({ length: count }, (_, i) => `big_${String(i).padStart(2, '0')}`),
  );
  const bad = await agent.client.callTool({ name: 'app_tools', arguments: { cursor: 'apt1.!!' } });
  assert.equal(bad.isError, true);
});
