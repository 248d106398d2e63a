import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon as startInProcess } from '../../daemon/server.js';
import type { Daemon } from '../../devkit/daemon.js';
import { connectAgent, connectApp, echoTool } from '../../devkit/client-tools.js';
import { fakeTimeDaemon } from '../../devkit/fake-time-daemon.js';

/**
 * What agents see of client tools: denyTools per agent (valid at boot
 * through the remembered names), the 64-tool limit per group and per
 * daemon, and app_tools paging within the inventory budget.
 */

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
