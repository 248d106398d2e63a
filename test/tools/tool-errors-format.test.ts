import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { errorEnvelopeSchema } from '../../catalog/envelope.js';
import { connectAgent, connectApp, echoTool } from '../../devkit/client-tools.js';
import { prepareHome } from '../../devkit/tools.js';
import { toolError } from '../../devkit/tool-error.js';

/**
 * One tool-error format reaches the model whatever the tool's source: a
 * built-in tool given bad arguments, a declared command that fails, a client
 * tool whose app answers with its own error, and a client tool no app serves
 * any more all answer `isError` with one text block holding the error
 * envelope {"ok":false,"error":{code, message, ...}}, and nothing else.
 */
const FAILS = {
  name: 'fails',
  description: 'a command that always fails',
  needs: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true },
  transport: { type: 'command', argv: [process.execPath, '-e', 'process.exit(3)'] },
};
const ERROR_KEYS = new Set(Object.keys(errorEnvelopeSchema.properties.error.properties));

test('built-in, declared and client tools fail in one format: the error envelope as the only text block', async (t) => {
  const h = await prepareHome(t, { tools: { 'fails.json': FAILS } });
  const app = await connectApp(h as never);
  t.after(() => app.close());
  assert.equal((await app.register('ed', [echoTool('ed_echo')])).status, 200);
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());

  const pending = agent.client.callTool({ name: 'ed_echo', arguments: { text: 'x' } });
  const req = await app.next<{ request_id: string }>((f) => f.type === 'client_tool.request');
  await app.claim(req.data.request_id);
  await app.answer(req.data.request_id, {
    ok: false,
    error: { code: 'file_locked', message: 'the file is locked' },
  });
  const answered = await pending;
  const builtin = await agent.client.callTool({ name: 'message_send', arguments: { nope: 1 } });
  const declared = await agent.client.callTool({ name: 'fails', arguments: {} });
  app.close();
  // Parked or refused at once, the call ends with no_client when its app is gone.
  const gone = await agent.client.callTool({ name: 'app_call', arguments: { tool: 'ed_echo' } });

  const cases: [string, unknown, string][] = [
    ['client tool, the app answers an error', answered, 'file_locked'],
    ['built-in tool, bad arguments', builtin, 'validation_failed'],
    ['declared tool, a bad exit', declared, 'upstream_error'],
    ['client tool, no app serves it', gone, 'no_client'],
  ];
  for (const [what, result, code] of cases) {
    const e = toolError(result);
    assert.equal(e.code, code, what);
    assert.ok(e.message.length > 0, what);
    for (const k of Object.keys(e)) assert.ok(ERROR_KEYS.has(k), `${what}: field ${k}`);
    const r = result as { structuredContent?: unknown };
    assert.equal(r.structuredContent, undefined, `${what}: no structuredContent on an error`);
  }
  assert.equal(toolError(answered).message, 'the file is locked');
});
