import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import { modern, openListen } from '../../devkit/mcp-modern.js';

/** The 2026-07-28 subscriptions/listen stream: acknowledged, kept open, ended gracefully, and the tools list_changed notice. */
test('MCP 2026-07-28: subscriptions/listen', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());

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
