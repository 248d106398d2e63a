import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import {
  connectAgent,
  connectApp,
  echoTool,
  waitUntil,
  type Frame,
} from '../../devkit/client-tools.js';

// A 1x1 PNG, as an app would send a screenshot.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function assertContiguous(frames: readonly Frame[]): void {
  assert.deepEqual(
    frames.map((f) => f.seq),
    frames.map((_, i) => i + 1),
  );
}

test('client tools end to end: an app registers, the agent is told, lists, calls; the app claims and answers', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  assert.equal(
    agent.client.getServerCapabilities()?.tools?.listChanged,
    true,
    'initialize advertises listChanged',
  );
  const before = await agent.client.listTools();
  assert.deepEqual(
    before.tools.map((x) => x.name),
    MCP_TOOLS.map((x) => x.name),
    'no app ever registered: no fallback tools',
  );

  const app = await connectApp(d);
  t.after(() => app.close());
  const watcher = await connectApp(d, { provider: false });
  t.after(() => watcher.close());
  assert.match(app.clientId, /^c_/);
  const hello = app.frames[0]!;
  assert.equal(hello.type, 'hello');
  assert.ok((hello.data.features as string[]).includes('client_tools'));
  // The agent's notification stream (GET on the MCP endpoint) must be open before the change.
  await new Promise((r) => setTimeout(r, 200));

  const reg = await app.register('editor', [
    echoTool('editor_echo'),
    {
      name: 'editor_screenshot',
      description: 'A screenshot of the editor.',
      input_schema: { type: 'object', properties: {} },
      timeout_s: 0,
    },
  ]);
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  assert.deepEqual(reg.body.data.tools, ['editor_echo', 'editor_screenshot']);

  await t.test(
    'the agent receives list_changed, re-lists and sees the tools and the fallbacks',
    async () => {
      await waitUntil(() => agent.changes.count > 0, 5000);
      const { tools } = await agent.client.listTools();
      const names = tools.map((x) => x.name);
      for (const n of ['editor_echo', 'editor_screenshot', 'app_tools', 'app_call'])
        assert.ok(names.includes(n), n);
      const echo = tools.find((x) => x.name === 'editor_echo')!;
      assert.deepEqual(
        echo.inputSchema,
        echoTool('editor_echo').input_schema,
        'the schema is forwarded as registered',
      );
      const changed = await watcher.next((f) => f.type === 'client_tools.changed');
      assert.deepEqual(changed.data.tools, ['editor_echo', 'editor_screenshot']);
      assert.equal(typeof changed.data.revision, 'number');
    },
  );

  await t.test(
    'a call is parked, published, claimed and answered; the agent gets the exact content blocks',
    async () => {
      const pending = agent.client.callTool({ name: 'editor_echo', arguments: { text: 'héllo' } });
      const req = await app.next<{
        request_id: string;
        tool: string;
        arguments: unknown;
        agent: { agent_id: string };
      }>((f) => f.type === 'client_tool.request');
      assert.equal(req.data.tool, 'editor_echo');
      assert.deepEqual(req.data.arguments, { text: 'héllo' });
      assert.equal(req.data.agent.agent_id, 'a1');
      const claim = await app.claim(req.data.request_id);
      assert.equal(claim.status, 200, JSON.stringify(claim.body));
      const content = [
        { type: 'text', text: 'héllo back', annotations: { audience: ['assistant'] } },
      ];
      const ans = await app.answer(req.data.request_id, { ok: true, content });
      assert.equal(ans.status, 200, JSON.stringify(ans.body));
      const result = await pending;
      assert.notEqual(result.isError, true);
      assert.deepEqual(result.content, content);
      // The non-provider stream saw the same request reduced to its id.
      const seen = await watcher.next((f) => f.type === 'client_tool.request');
      assert.deepEqual(seen.data, { request_id: req.data.request_id });
    },
  );

  await t.test('images pass through verbatim', async () => {
    const pending = agent.client.callTool({ name: 'editor_screenshot', arguments: {} });
    const req = await app.next<{ request_id: string }>(
      (f) => f.type === 'client_tool.request' && f.data.tool === 'editor_screenshot',
    );
    await app.claim(req.data.request_id);
    const content = [
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'text', text: 'the editor' },
    ];
    assert.equal((await app.answer(req.data.request_id, { ok: true, content })).status, 200);
    const result = await pending;
    assert.deepEqual(result.content, content);
  });

  await t.test(
    "the app's own failure reaches the agent as a tool error '<code>: <message>'",
    async () => {
      const pending = agent.client.callTool({ name: 'editor_echo', arguments: { text: 'x' } });
      const req = await app.next<{ request_id: string }>(
        (f) =>
          f.type === 'client_tool.request' &&
          (f.data.arguments as { text?: string } | undefined)?.text === 'x',
      );
      await app.claim(req.data.request_id);
      await app.answer(req.data.request_id, {
        ok: false,
        error: { code: 'file_locked', message: 'the file is locked' },
      });
      const result = await pending;
      assert.equal(result.isError, true);
      assert.deepEqual(result.content, [{ type: 'text', text: 'file_locked: the file is locked' }]);
    },
  );

  await t.test(
    'fallback tools: app_tools lists, app_call calls through the same broker',
    async () => {
      const listed = await agent.client.callTool({ name: 'app_tools', arguments: {} });
      const tools = (listed.structuredContent as { tools: { name: string; group: string }[] })
        .tools;
      assert.deepEqual(
        tools.map((x) => `${x.group}/${x.name}`),
        ['editor/editor_echo', 'editor/editor_screenshot'],
      );
      const pending = agent.client.callTool({
        name: 'app_call',
        arguments: { tool: 'editor_echo', args: { text: 'via fallback' } },
      });
      const req = await app.next<{ request_id: string }>(
        (f) =>
          f.type === 'client_tool.request' &&
          (f.data.arguments as { text?: string } | undefined)?.text === 'via fallback',
      );
      await app.claim(req.data.request_id);
      await app.answer(req.data.request_id, { ok: true, content: [{ type: 'text', text: 'ok' }] });
      assert.deepEqual((await pending).content, [{ type: 'text', text: 'ok' }]);
      const missing = await agent.client.callTool({
        name: 'app_call',
        arguments: { tool: 'nope', args: {} },
      });
      assert.equal(missing.isError, true);
      assert.match((missing.content as { text: string }[])[0]!.text, /^no_client: /);
    },
  );

  await t.test(
    "an agent's `agentteam run` exiting cancels its parked call: client_tool.cancelled",
    async () => {
      // The runtime under `run` announces itself, then calls the tool with its own token file and waits.
      const child = [
        'const fs=require("fs");',
        'process.stdout.write(JSON.stringify({env:process.env,argv:process.argv.slice(1),pid:process.pid})+"\\n");',
        'const token=fs.readFileSync(process.env.AGENTTEAM_EXEC_TOKEN_FILE,"utf8").trim();',
        'fetch(process.env.AGENTTEAM_MCP_URL,{method:"POST",headers:{authorization:"Bearer "+token,"content-type":"application/json"},',
        'body:JSON.stringify({jsonrpc:"2.0",id:1,method:"tools/call",params:{name:"editor_echo",arguments:{text:"from run"}}})}).catch(()=>{});',
        'setInterval(()=>{},1e6);',
      ].join('');
      const rt = await startRuntime(d, {
        server: 'local',
        agent: 'runner',
        command: [process.execPath, '-e', child],
      });
      const req = await app.next<{ request_id: string; agent: { agent_id: string } }>(
        (f) =>
          f.type === 'client_tool.request' &&
          (f.data.arguments as { text?: string } | undefined)?.text === 'from run',
      );
      assert.equal(req.data.agent.agent_id, 'runner');
      assert.equal((await app.claim(req.data.request_id)).status, 200);
      await rt.close(); // the command exits, so `run` exits and its authorization is revoked
      const cancelled = await app.next(
        (f) => f.type === 'client_tool.cancelled' && f.data.request_id === req.data.request_id,
      );
      assert.deepEqual(cancelled.data, {
        request_id: req.data.request_id,
        reason: 'agent_stopped',
      });
      const late = await app.answer(req.data.request_id, { ok: true, content: [] });
      assert.equal(late.body.error.code, 'already_settled');
    },
  );

  await t.test(
    'every stream has a contiguous seq; names are remembered in state/client-tools.json; status counts',
    async () => {
      assertContiguous(app.frames);
      assertContiguous(watcher.frames);
      assert.equal(
        app.frames.length,
        watcher.frames.length,
        'redaction keeps the two streams in step',
      );
      // The file is written off the request path: it follows the registration shortly after.
      const readState = () =>
        JSON.parse(readFileSync(join(d.home, 'state', 'client-tools.json'), 'utf8')) as {
          names: string[];
        };
      await waitUntil(() => {
        try {
          return readState().names.length === 2;
        } catch {
          return false;
        }
      });
      const state = readState();
      const status = await app.call('GET', '/api/v1/status');
      assert.deepEqual(status.body.data.clientTools, {
        clients: 2,
        groups: 1,
        tools: 2,
        pending: 0,
      });
      assert.deepEqual(state.names, ['editor_echo', 'editor_screenshot']);
    },
  );
});
