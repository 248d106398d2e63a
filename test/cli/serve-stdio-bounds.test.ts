import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon } from '../../devkit/daemon.js';
import { spawnServe, type StdioApp } from '../../devkit/serve-stdio.js';

/**
 * What initialize negotiates (client_tools null, empty; how many
 * required capabilities) and the base protocol bounds of the stdio
 * transport: frame size, JSON depth, lifetime request ids.
 */

test('serve --stdio initialize: client_tools null invalid, [] valid; required_capabilities 16 / 18 entries', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const app = spawnServe(d);
  t.after(() => app.close());
  const caps = (k: number, withTools: boolean) => [
    ...(withTools ? ['client.tools'] : []),
    ...Array.from({ length: k - (withTools ? 1 : 0) }, (_, i) => `cap.${i}`),
  ];
  const r17 = await app.request('initialize', { required_capabilities: caps(17, false) });
  assert.match(r17.error.message, /17 entries; at most 16$/);
  const r16 = await app.request('initialize', { required_capabilities: caps(16, false) });
  assert.match(
    r16.error.message,
    /does not provide the required capability "cap.0"/,
    '16 entries pass the count; the capabilities themselves are unknown',
  );
  const r19 = await app.request('initialize', {
    required_capabilities: caps(19, true),
    client_tools: [],
  });
  assert.match(r19.error.message, /19 entries; at most 18 with client.tools/);
  const r18 = await app.request('initialize', {
    required_capabilities: caps(18, true),
    client_tools: [],
  });
  assert.match(r18.error.message, /does not provide the required capability "cap.0"/);
  for (const r of [r17, r16, r19, r18]) assert.equal(r.error.data.code, 'invalid_params');
  const missing = await app.request('initialize', { required_capabilities: ['client.tools'] });
  assert.match(missing.error.message, /client_tools is required/);
  const nul = await app.request('initialize', {
    required_capabilities: ['client.tools'],
    client_tools: null,
  });
  assert.match(nul.error.message, /not null/);
  app.send(
    '{"jsonrpc":"2.0","id":"dupkey","method":"initialize","params":{"required_capabilities":["client.tools"],"client_tools":[{"name":"client__a","name":"client__b","description":"d","input_schema":{"type":"object"}}]}}',
  );
  const dupKey = await app.next((f) => f.id === 'dupkey');
  assert.equal(dupKey.error.data.code, 'invalid_params', 'a duplicate descriptor field fails');
  const empty = await app.request('initialize', {
    required_capabilities: ['client.tools'],
    client_tools: [],
  });
  assert.deepEqual(empty.result.client_tools.tools, []);
  assert.deepEqual(empty.result.capabilities, ['client.tools']);
});

test('serve --stdio base bounds: input frames of 65536 and 65537 bytes, JSON depth 32 and 33, request id 4097', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());

  await t.test('depth 32 is read, 33 is invalid_request', async () => {
    const app = spawnServe(d);
    try {
      const deep = (depth: number) =>
        `{"jsonrpc":"2.0","id":"d${depth}","method":"x.deep","params":{"a":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;
      app.send(deep(32));
      assert.equal(
        (await app.next((f) => f.id === 'd32')).error.data.code,
        'unsupported_method',
        'read and dispatched',
      );
      app.send(deep(33));
      const refused = await app.next((f) => f.id === null);
      assert.equal(refused.error.data.code, 'invalid_request');
      assert.match(refused.error.message, /deeper than 32/);
    } finally {
      await app.close();
    }
  });

  await t.test(
    'a frame of 65536 bytes (LF excluded) is read; 65537 closes the connection',
    async () => {
      const app: StdioApp = spawnServe(d);
      const frame = (bytes: number, id: string) => {
        const head = `{"jsonrpc":"2.0","id":"${id}","method":"x.pad","params":{"p":"`;
        const tail = '"}}';
        return head + 'p'.repeat(bytes - head.length - tail.length) + tail;
      };
      assert.equal(Buffer.byteLength(frame(65_536, 'f1')), 65_536);
      app.send(frame(65_536, 'f1'));
      assert.equal((await app.next((f) => f.id === 'f1')).error.data.code, 'unsupported_method');
      app.send(frame(65_537, 'f2'));
      const closing = await app.next((f) => f.id === null);
      assert.equal(closing.error.data.code, 'body_too_large');
      assert.equal(await app.exited, 1);
    },
  );

  await t.test(
    'an app that stops reading stdout: past 512 KiB queued the child gives up and ends',
    async () => {
      const app = spawnServe(d);
      app.child.stdout!.pause();
      // Every answer echoes its 40 KB id: 20 of them are 800 KB the app never reads.
      for (let i = 0; i < 20; i++)
        app.send({ jsonrpc: '2.0', id: `${i}-${'i'.repeat(40_000)}`, method: 'x.unread' });
      const t0 = Date.now();
      const kill = setTimeout(() => app.child.kill('SIGKILL'), 10_000);
      assert.equal(await app.exited, 1);
      clearTimeout(kill);
      assert.ok(Date.now() - t0 < 9000, 'ended on its own, within the 2 s flush bound');
      assert.match(app.stderr(), /does not read stdout/);
    },
  );

  await t.test('4096 lifetime request ids; the 4097th is refused', async () => {
    const app = spawnServe(d);
    try {
      const lines = Array.from({ length: 4097 }, (_, i) =>
        JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'x.count' }),
      ).join('\n');
      app.child.stdin!.write(`${lines}\n`);
      const last = await app.next((f) => f.id === 4097, 20_000);
      assert.equal(last.error.data.code, 'request_ids_exhausted');
      assert.equal(
        app.frames.filter((f) => f.error?.data?.code === 'unsupported_method').length,
        4096,
      );
    } finally {
      await app.close();
    }
  });
});
