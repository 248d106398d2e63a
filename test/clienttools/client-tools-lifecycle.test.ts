import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { fakeTimeDaemon } from '../../devkit/fake-time-daemon.js';
import { connectAgent, connectApp, echoTool, waitUntil } from '../../devkit/client-tools.js';
import { toolErrorLine } from '../../devkit/tool-error.js';

/**
 * Client tools over time on a manual clock: deadlines (`timeout_s: 1`) and
 * hand-offs (`timeout_s: 0`), coalesced change notices, a reconnecting app
 * and a provider that goes away. Cancellation by the agent is
 * client-tools-cancel.test.ts; what agents see is client-tools-exposure.test.ts.
 */

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
    assert.match(toolErrorLine(r), /^timeout: /);
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
      assert.match(toolErrorLine(r), /^no_client: /);
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
