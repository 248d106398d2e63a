import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import {
  connectAgent,
  connectApp,
  echoTool,
  type Agent,
  type App,
} from '../../devkit/client-tools.js';

function code(r: { status: number; body: any }): string {
  return `${r.status} ${r.body?.error?.code ?? 'ok'}`;
}

test('client tools: every ownership rule and error code of the app routes', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const a = await connectApp(d);
  const b = await connectApp(d);
  const watcher = await connectApp(d, { provider: false });
  t.after(() => {
    for (const x of [a, b, watcher]) x.close();
  });
  const agent: Agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  const other: Agent = await connectAgent(d, 'a2');
  t.after(() => other.close());
  assert.equal((await a.register('shared', [echoTool('shared_echo')])).status, 200);

  /** Starts an agent call and returns its request id as app `who` saw it. */
  async function parked(
    from: Agent,
    who: App,
    text: string,
  ): Promise<{ id: string; result: Promise<unknown> }> {
    const result = from.client.callTool({ name: 'shared_echo', arguments: { text } });
    const f = await who.next<{ request_id: string }>(
      (x) =>
        x.type === 'client_tool.request' &&
        (x.data.arguments as { text?: string } | undefined)?.text === text,
    );
    return { id: f.data.request_id, result };
  }

  await t.test('invalid_tool: a schema outside the subset, with the JSON path', async () => {
    const r = await a.register('bad', [
      {
        ...echoTool('bad_one'),
        input_schema: { type: 'object', properties: { ref: { type: 'bogus' } } },
      },
    ]);
    assert.equal(code(r), '400 invalid_tool');
    assert.equal(
      r.body.error.message,
      'tools[0].input_schema at $.properties.ref.type: unknown type "bogus"',
    );
    const kw = await a.register('bad', [
      {
        ...echoTool('bad_one'),
        input_schema: { type: 'object', properties: { x: { $ref: '#/defs/x' } } },
      },
    ]);
    assert.equal(
      kw.body.error.message,
      'tools[0].input_schema at $.properties.x.$ref: unknown keyword "$ref"',
    );
    assert.equal(code(await a.register('bad', [{ ...echoTool('bad one') }])), '400 invalid_tool');
    assert.equal(
      code(await a.register('bad', [{ ...echoTool('bad_two'), timeout_s: -1 }])),
      '400 invalid_tool',
    );
    assert.equal(
      code(await a.register('bad', [{ ...echoTool('bad_two'), extra: 1 }])),
      '400 invalid_tool',
    );
  });

  await t.test('too_many_tools: 64 per group hold, the 65th is refused', async () => {
    const tools = (n: number, p: string) =>
      Array.from({ length: n }, (_, i) => echoTool(`${p}${i}`));
    assert.equal(code(await b.register('big', tools(65, 'big_'))), '400 too_many_tools');
    assert.equal(
      code(await b.register('big', tools(63, 'big_'))),
      '200 ok',
      '63 here + 1 in "shared" = 64 in the daemon',
    );
    // 64 per daemon: one more anywhere is the 65th.
    assert.equal(code(await b.register('more', tools(1, 'more_'))), '400 too_many_tools');
    assert.equal(code(await b.register('big', tools(64, 'big_'))), '400 too_many_tools');
    assert.equal(code(await b.register('big', [])), '200 ok', 'an empty group withdraws it');
    assert.equal(code(await b.register('more', tools(63, 'more_'))), '200 ok');
    assert.equal(code(await b.register('more', [])), '200 ok');
  });

  await t.test(
    'unknown_client: no client_id, an unknown one, or a stream that is not a provider',
    async () => {
      assert.equal(
        code(await a.call('POST', '/api/v1/client-tools', { group: 'g', tools: [] })),
        '404 unknown_client',
      );
      assert.equal(
        code(
          await a.call('POST', '/api/v1/client-tools', {
            client_id: 'c_nobody',
            group: 'g',
            tools: [],
          }),
        ),
        '404 unknown_client',
      );
      assert.equal(
        code(
          await a.call('POST', '/api/v1/client-tools', {
            client_id: watcher.clientId,
            group: 'g',
            tools: [],
          }),
        ),
        '404 unknown_client',
      );
      assert.equal(
        code(await a.call('POST', '/api/v1/client-tools/requests/req_x/claim', {})),
        '404 unknown_client',
      );
      assert.equal(
        code(
          await a.call('POST', '/api/v1/client-tools/requests/req_x/result', {
            ok: true,
            content: [],
          }),
        ),
        '404 unknown_client',
      );
      assert.equal(
        code(await a.call('GET', '/api/v1/client-tools/requests?pending=1&client_id=c_nobody')),
        '404 unknown_client',
      );
      // Without any client_id the list answers, with ids only.
      const bare = await a.call('GET', '/api/v1/client-tools/requests?pending=1');
      assert.equal(code(bare), '200 ok');
      assert.deepEqual(bare.body.data.requests, []);
    },
  );

  await t.test(
    'name_conflict: a built-in tool, a fallback tool, another group; the message names both parties',
    async () => {
      const builtin = await b.register('clash', [echoTool('message_send')]);
      assert.equal(code(builtin), '409 name_conflict');
      assert.match(
        builtin.body.error.message,
        /"message_send" of client tool group "clash" is already taken by the daemon's built-in tools/,
      );
      assert.equal(code(await b.register('clash', [echoTool('app_call')])), '409 name_conflict');
      const other = await b.register('clash', [echoTool('shared_echo')]);
      assert.equal(code(other), '409 name_conflict');
      assert.match(other.body.error.message, /already taken by client tool group "shared"/);
    },
  );

  await t.test(
    "owned_by_other: the first claimant owns that agent's group; a second app cannot claim it",
    async () => {
      assert.equal(
        (await b.register('shared', [echoTool('shared_echo')])).status,
        200,
        'b provides the same group',
      );
      const first = await parked(agent, a, 'one');
      assert.equal(code(await a.claim(first.id)), '200 ok');
      await a.answer(first.id, { ok: true, content: [{ type: 'text', text: '1' }] });
      await first.result;
      const second = await parked(agent, a, 'two');
      const refused = await b.claim(second.id);
      assert.equal(code(refused), '409 owned_by_other');
      // b never saw this request in full: a owns agent a1's use of the group.
      const seenByB = await b.next<{ request_id: string }>(
        (x) => x.type === 'client_tool.request' && x.data.request_id === second.id,
      );
      assert.deepEqual(seenByB.data, { request_id: second.id });
      // Another agent's use of the group is still open to b.
      const elsewhere = await parked(other, b, 'three');
      assert.equal(code(await b.claim(elsewhere.id)), '200 ok');
      await b.answer(elsewhere.id, { ok: true, content: [] });
      await elsewhere.result;
      await a.claim(second.id);
      await a.answer(second.id, { ok: true, content: [] });
      await second.result;
    },
  );

  await t.test('already_claimed: a second claim of the same request', async () => {
    const p = await parked(agent, a, 'claim twice');
    assert.equal(code(await a.claim(p.id)), '200 ok');
    assert.equal(code(await a.claim(p.id)), '409 already_claimed');
    await a.answer(p.id, { ok: true, content: [] });
    await p.result;
  });

  await t.test(
    'not_claimant: a result before claiming, and from a client that did not claim',
    async () => {
      const p = await parked(other, b, 'not mine');
      assert.equal(code(await b.answer(p.id, { ok: true, content: [] })), '409 not_claimant');
      await b.claim(p.id);
      assert.equal(code(await a.answer(p.id, { ok: true, content: [] })), '409 not_claimant');
      await b.answer(p.id, { ok: true, content: [] });
      await p.result;
    },
  );

  await t.test('already_settled: a second result', async () => {
    const p = await parked(agent, a, 'twice');
    await a.claim(p.id);
    assert.equal(
      code(await a.answer(p.id, { ok: true, content: [{ type: 'text', text: 'first' }] })),
      '200 ok',
    );
    assert.equal(
      code(await a.answer(p.id, { ok: true, content: [{ type: 'text', text: 'second' }] })),
      '409 already_settled',
    );
    assert.deepEqual(((await p.result) as { content: unknown }).content, [
      { type: 'text', text: 'first' },
    ]);
  });

  await t.test(
    'unknown_request: an id that never existed, and a claim of a settled one',
    async () => {
      assert.equal(code(await a.claim('req_doesnotexist')), '404 unknown_request');
      assert.equal(
        code(await a.answer('req_doesnotexist', { ok: true, content: [] })),
        '404 unknown_request',
      );
      const p = await parked(agent, a, 'settle then claim');
      await a.claim(p.id);
      await a.answer(p.id, { ok: true, content: [] });
      await p.result;
      assert.equal(code(await a.claim(p.id)), '404 unknown_request');
    },
  );

  await t.test('a malformed result is refused without settling the call', async () => {
    const p = await parked(agent, a, 'bad result');
    await a.claim(p.id);
    assert.equal(
      code(await a.answer(p.id, { ok: true, content: [{ type: 'audio', data: 'x' }] })),
      '400 validation_failed',
    );
    assert.equal(
      code(
        await a.answer(p.id, {
          ok: true,
          content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }],
        }),
      ),
      '400 validation_failed',
    );
    assert.equal(code(await a.answer(p.id, { ok: false, error: 'boom' })), '400 validation_failed');
    assert.equal(
      code(await a.answer(p.id, { ok: true, content: [{ type: 'text', text: 'fixed' }] })),
      '200 ok',
    );
    assert.deepEqual(((await p.result) as { content: unknown }).content, [
      { type: 'text', text: 'fixed' },
    ]);
  });
});
