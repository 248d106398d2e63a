import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectAgent, connectApp, echoTool } from '../../devkit/client-tools.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * One name, one entry across every source: a declaration and a client tool
 * never share a name (each refusal names both sides), and a `builtin`
 * declaration reaches the daemon's own tool under a new name without being
 * able to loosen its hints.
 */
const NODE = process.execPath;
const none = { type: 'object', properties: {}, additionalProperties: false };

test("declarations and client tools refuse each other's names, naming both sides", async (t) => {
  const h = await prepareHome(t, {
    tools: {
      'notes.json': {
        name: 'notes_echo',
        description: 'declared first',
        needs: none,
        transport: { type: 'command', argv: [NODE, '-e', 'process.stdout.write("declared")'] },
      },
    },
  });
  const app = await connectApp(h as never);
  t.after(() => app.close());
  const refused = await app.register('notes', [echoTool('notes_echo')]);
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'name_conflict');
  assert.match(refused.body.error.message, /notes_echo/);
  assert.match(
    refused.body.error.message,
    new RegExp(`the declaration ${join(h.home, 'tools', 'notes.json').replace(/[.]/g, '\\.')}`),
  );

  assert.equal((await app.register('ed', [echoTool('ed_echo')])).status, 200);
  writeFileSync(
    join(h.home, 'tools', 'late.json'),
    JSON.stringify({
      name: 'ed_echo',
      description: 'declared after the app',
      needs: none,
      transport: { type: 'command', argv: [NODE, '-e', '0'] },
    }),
  );
  const reload = await h.cli(['daemon', 'reload']);
  const problems = JSON.parse(reload.stdout).data.tools.problems as {
    file: string;
    pointer: string;
    message: string;
  }[];
  assert.deepEqual(
    problems.map((p) => [p.file, p.pointer]),
    [[join(h.home, 'tools', 'late.json'), '/name']],
  );
  assert.match(problems[0]!.message, /"ed_echo" is already taken by client tool group "ed"/);
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());
  const r = await agent.client.callTool({ name: 'notes_echo', arguments: {} });
  assert.deepEqual(r.content, [{ type: 'text', text: 'declared' }]);
});

test('a builtin declaration reaches the built-in under its own name; it cannot make a writing tool read-only', async (t) => {
  const h = await prepareHome(t, {
    tools: {
      'history.json': {
        name: 'channel_history',
        description: 'Reads a channel, newest first.',
        transport: { type: 'builtin', tool: 'message_history_read' },
      },
      'post.json': {
        name: 'post',
        description: 'Posts.',
        annotations: { readOnlyHint: true, title: 'Post it' },
        transport: { type: 'builtin', tool: 'message_send' },
      },
      'ghost.json': {
        name: 'ghost',
        description: 'x',
        transport: { type: 'builtin', tool: 'no_such_tool' },
      },
    },
  });
  const agent = await connectAgent(h as never, 'a1', { primaryThreadId: 'main' });
  t.after(() => agent.close());
  const { tools } = await agent.client.listTools();
  const hist = tools.find((x) => x.name === 'channel_history');
  const post = tools.find((x) => x.name === 'post');
  assert.equal(hist?.description, 'Reads a channel, newest first.');
  assert.deepEqual(hist?.inputSchema.required, ['target']);
  assert.equal(hist?.annotations?.readOnlyHint, true);
  assert.equal(post?.annotations?.readOnlyHint, false, "the built-in's hints stay");
  assert.equal(post?.annotations?.title, 'Post it');
  assert.ok(!tools.some((x) => x.name === 'ghost'));
  await agent.client.callTool({
    name: 'post',
    arguments: { target: 'channel:ops', content: 'hi' },
  });
  const read = await agent.client.callTool({
    name: 'channel_history',
    arguments: { target: 'channel:ops' },
  });
  assert.equal(
    (read.structuredContent as { messages: { content: string }[] }).messages[0]!.content,
    'hi',
  );
  const child = await agent.client.callTool({
    name: 'post',
    arguments: { target: 'channel:ops', content: 'x' },
    _meta: { 'agentteam/threadId': 'sub' },
  });
  assert.equal(child.isError, true);
  const list = await h.cli(['tools', 'list']);
  assert.match(
    list.stderr,
    /ghost\.json#\/transport\/tool: "no_such_tool" is not one of the daemon's built-in tools/,
  );
});
