import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { connectAgent, connectApp, echoTool } from '../../devkit/client-tools.js';
import { lookupTool, spawnServe } from '../../devkit/serve-stdio.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * Over both relays, values under credential-like keys of an app's answer
 * reach the agent redacted although no one configured them as secrets; a
 * collision that masking makes is refused to the app, whose call stays
 * pending for a corrected answer.
 */

const SECRET = 'correct-horse-battery';

test('credential-like fields of client tool results are redacted over HTTP/SSE and stdio', async (t) => {
  const h = await prepareHome(t, { env: { VENDOR_TOKEN: SECRET } });
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());

  await t.test(
    'HTTP/SSE: JSON text blocks and block fields; a collision is validation_failed and the call stays pending',
    async () => {
      const app = await connectApp(h as never);
      t.after(() => app.close());
      assert.equal((await app.register('cred', [echoTool('cred_echo')])).status, 200);
      const pending = agent.client.callTool({ name: 'cred_echo', arguments: { text: 'x' } });
      const req = await app.next<{ request_id: string }>((f) => f.type === 'client_tool.request');
      await app.claim(req.data.request_id);
      const collision = await app.answer(req.data.request_id, {
        ok: true,
        content: [{ type: 'text', text: 'x', _meta: { [SECRET]: 1, '[VENDOR_TOKEN]': 2 } }],
      });
      assert.equal(collision.status, 400);
      assert.equal(collision.body.error.code, 'validation_failed');
      assert.match(collision.body.error.message, /two keys equal/);
      const text = JSON.stringify(
        {
          user: 'bob',
          db: { Password: 'hunter2-not-configured', port: 5432 },
          apiKey: 'sk-live-123',
        },
        null,
        2,
      );
      const content = [
        { type: 'text', text },
        { type: 'text', text: 'meta', _meta: { authorization: 'Bearer abc.def', author: 'Ann' } },
      ];
      assert.equal((await app.answer(req.data.request_id, { ok: true, content })).status, 200);
      const r = (await pending) as { content: { text: string; _meta?: unknown }[] };
      assert.equal(
        r.content[0]!.text,
        JSON.stringify(
          { user: 'bob', db: { Password: '[REDACTED]', port: 5432 }, apiKey: '[REDACTED]' },
          null,
          2,
        ),
      );
      assert.deepEqual(r.content[1]!._meta, { authorization: '[REDACTED]', author: 'Ann' });
    },
  );

  await t.test('stdio: structuredContent and its text copy', async () => {
    const app = spawnServe(h as never);
    t.after(() => app.close());
    assert.ok((await app.init([lookupTool()])).result);
    const pending = agent.client.callTool({
      name: 'client__lookup_record',
      arguments: { record_id: 'x' },
    });
    const call = await app.nextCall();
    const structured = {
      record: { id: 7, session_id: 'sess-abcdef', cookies: ['a=1', 'b=2'], tokens: null },
    };
    assert.deepEqual((await app.answer(call, { text: 'found', structured })).result, {
      accepted: true,
    });
    const r = (await pending) as { content: { text: string }[]; structuredContent: unknown };
    const expected = {
      record: {
        id: 7,
        session_id: '[REDACTED]',
        cookies: ['[REDACTED]', '[REDACTED]'],
        tokens: null,
      },
    };
    assert.deepEqual(r.structuredContent, expected);
    assert.deepEqual(JSON.parse(r.content[1]!.text), expected);
  });
});
