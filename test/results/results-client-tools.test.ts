import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { connectAgent, connectApp, echoTool } from '../../devkit/client-tools.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * A client tool's answer passes the result gate before the agent sees it:
 * a secret in a text block, in a structured field of a block (as a value and
 * as a key) and in an app's error message is masked; the request event the
 * app receives carries the agent's arguments masked too.
 */
const SECRET = 'correct-horse-battery';

test('client tool results, structured fields (keys included) and app errors are masked on the way to the agent', async (t) => {
  const h = await prepareHome(t, { env: { VENDOR_TOKEN: SECRET } });
  const app = await connectApp(h as never);
  t.after(() => app.close());
  assert.equal((await app.register('ed', [echoTool('ed_echo')])).status, 200);
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());

  const pending = agent.client.callTool({ name: 'ed_echo', arguments: { text: `args ${SECRET}` } });
  const req = await app.next<{ request_id: string; arguments: { text: string } }>(
    (f) => f.type === 'client_tool.request',
  );
  assert.equal(req.data.arguments.text, 'args [VENDOR_TOKEN]');
  await app.claim(req.data.request_id);
  const content = [
    { type: 'text', text: `value ${SECRET} here` },
    { type: 'text', text: 'structured', _meta: { [SECRET]: { nested: [`x${SECRET}y`] } } },
  ];
  assert.equal((await app.answer(req.data.request_id, { ok: true, content })).status, 200);
  const result = await pending;
  const raw = JSON.stringify(result);
  assert.ok(!raw.includes(SECRET), raw);
  assert.deepEqual(result.content, [
    { type: 'text', text: 'value [VENDOR_TOKEN] here' },
    // The masked key names a token, so what sits under it is redacted as a credential field too.
    { type: 'text', text: 'structured', _meta: { '[VENDOR_TOKEN]': { nested: ['[REDACTED]'] } } },
  ]);

  const failing = agent.client.callTool({ name: 'ed_echo', arguments: { text: 'x' } });
  const req2 = await app.next<{ request_id: string }>(
    (f) => f.type === 'client_tool.request' && f.data.request_id !== req.data.request_id,
  );
  await app.claim(req2.data.request_id);
  await app.answer(req2.data.request_id, {
    ok: false,
    error: { code: 'app_failed', message: `could not use ${SECRET}` },
  });
  const failed = await failing;
  assert.equal(failed.isError, true);
  assert.ok(!JSON.stringify(failed).includes(SECRET));
  assert.match(JSON.stringify(failed), /could not use \[VENDOR_TOKEN\]/);
});
