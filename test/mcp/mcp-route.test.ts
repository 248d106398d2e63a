import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { rpc } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import { connectMcp as connect, textOf } from '../../devkit/mcp-client.js';

test('MCP route: real client, people and agents exchange messages, protocol edges', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  assert.match(rt.mcpUrl, /\/api\/internal\/mcp\/servers\/local\/agents\/a1$/);

  const client = await connect(rt.mcpUrl, rt.token());
  t.after(() => client.close());

  await t.test(
    'initialize negotiates a supported revision and lists the full inventory',
    async () => {
      assert.equal(client.getServerVersion()?.name, 'agentteam');
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((x) => x.name),
        MCP_TOOLS.map((x) => x.name),
      );
      const reads = ['message_history_read', 'memory_search', 'kb_search', 'kb_fetch'];
      for (const tool of tools)
        assert.equal(tool.annotations?.readOnlyHint, reads.includes(tool.name), tool.name);
      for (const tool of tools) assert.equal(tool.outputSchema?.additionalProperties, false);
    },
  );

  await t.test(
    'a person posts, the agent reads it and replies, the person reads the reply',
    async () => {
      const posted = await d.cli([
        'message',
        'post',
        '--target',
        'channel:general',
        '--as',
        'human:ada',
        'Please summarise the release.',
      ]);
      assert.equal(posted.code, 0, posted.stderr);
      const humanMsg = (
        JSON.parse(posted.stdout) as { data: { message: { id: string; author: string } } }
      ).data.message;
      assert.equal(humanMsg.author, 'human:ada');

      const history = await client.callTool({
        name: 'message_history_read',
        arguments: { target: 'channel:general' },
      });
      assert.notEqual(history.isError, true, textOf(history));
      const page = history.structuredContent as {
        messages: { id: string; content: string }[];
        hasMore: boolean;
      };
      assert.equal(page.messages[0]?.id, humanMsg.id);
      assert.deepEqual(JSON.parse(textOf(history)), page, 'text content carries the same JSON');

      const sent = await client.callTool({
        name: 'message_send',
        arguments: {
          target: 'channel:general',
          content: 'Release summary: all green.',
          replyTo: humanMsg.id,
        },
      });
      assert.notEqual(sent.isError, true, textOf(sent));
      const reply = (
        sent.structuredContent as { message: { id: string; author: string; replyTo: string } }
      ).message;
      assert.equal(reply.author, 'agent:a1');
      assert.equal(reply.replyTo, humanMsg.id);

      const seen = await d.cli(['message', 'history', '--target', 'channel:general']);
      assert.equal(seen.code, 0, seen.stderr);
      const msgs = (
        JSON.parse(seen.stdout) as { data: { messages: { id: string; content: string }[] } }
      ).data.messages;
      assert.deepEqual(
        msgs.map((m) => m.id),
        [reply.id, humanMsg.id],
        'newest first',
      );
      assert.equal(msgs[0]?.content, 'Release summary: all green.');

      // The person answers the agent explicitly; another server's channel of the same name stays apart.
      const answer = await d.cli([
        'message',
        'post',
        '--server',
        'local',
        '--target',
        'channel:general',
        '--as',
        'human:ada',
        '--reply-to',
        reply.id,
        'Thanks!',
      ]);
      assert.equal(answer.code, 0, answer.stderr);
      assert.equal(
        (JSON.parse(answer.stdout) as { data: { message: { replyTo: string } } }).data.message
          .replyTo,
        reply.id,
      );
      const elsewhere = await d.cli([
        'message',
        'post',
        '--server',
        'other',
        '--target',
        'channel:general',
        '--as',
        'human:bob',
        'hello other',
      ]);
      assert.equal(elsewhere.code, 0, elsewhere.stderr);
      const agentView = await client.callTool({
        name: 'message_history_read',
        arguments: { target: 'channel:general' },
      });
      const contents = (
        agentView.structuredContent as { messages: { content: string }[] }
      ).messages.map((m) => m.content);
      assert.deepEqual(contents.slice(0, 2), ['Thanks!', 'Release summary: all green.']);
      assert.ok(!contents.includes('hello other'));
      const bad = await d.cli(['message', 'post', '--target', 'general', '--as', 'human:ada', 'x']);
      assert.equal(bad.code, 2);
      const notHuman = await d.cli([
        'message',
        'post',
        '--target',
        'channel:general',
        '--as',
        'agent:a1',
        'x',
      ]);
      assert.equal(notHuman.code, 2);
    },
  );

  await t.test('history pages with an opaque cursor bound to its target', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await client.callTool({
        name: 'message_send',
        arguments: { target: 'dm:ada', content: `n${i}` },
      });
      assert.notEqual(r.isError, true, textOf(r));
    }
    const p1 = await client.callTool({
      name: 'message_history_read',
      arguments: { target: 'dm:ada', limit: 3 },
    });
    const s1 = p1.structuredContent as {
      messages: { content: string }[];
      hasMore: boolean;
      nextCursor: string;
    };
    assert.deepEqual(
      s1.messages.map((m) => m.content),
      ['n4', 'n3', 'n2'],
    );
    assert.equal(s1.hasMore, true);
    const p2 = await client.callTool({
      name: 'message_history_read',
      arguments: { target: 'dm:ada', limit: 3, cursor: s1.nextCursor },
    });
    const s2 = p2.structuredContent as {
      messages: { content: string }[];
      hasMore: boolean;
      nextCursor?: string;
    };
    assert.deepEqual(
      s2.messages.map((m) => m.content),
      ['n1', 'n0'],
    );
    assert.equal(s2.hasMore, false);
    assert.equal(s2.nextCursor, undefined);
    const foreign = await client.callTool({
      name: 'message_history_read',
      arguments: { target: 'channel:general', cursor: s1.nextCursor },
    });
    assert.equal(foreign.isError, true);
    assert.equal(
      (JSON.parse(textOf(foreign)) as { error: { code: string } }).error.code,
      'validation_failed',
    );
    const junk = await client.callTool({
      name: 'message_history_read',
      arguments: { target: 'dm:ada', cursor: 'junk' },
    });
    assert.equal(junk.isError, true);
  });

  await t.test('a reaction shows in the next history read, once per author', async () => {
    const sent = await client.callTool({
      name: 'message_send',
      arguments: { target: 'channel:react', content: 'ship it?' },
    });
    const id = (sent.structuredContent as { message: { id: string } }).message.id;
    const before = await client.callTool({
      name: 'message_history_read',
      arguments: { target: 'channel:react' },
    });
    assert.deepEqual(
      (before.structuredContent as { messages: { reactions: unknown[] }[] }).messages[0]?.reactions,
      [],
    );
    for (let i = 0; i < 2; i++) {
      const r = await client.callTool({
        name: 'message_react',
        arguments: { messageId: id, emoji: '👍' },
      });
      assert.notEqual(r.isError, true, textOf(r));
    }
    const after = await client.callTool({
      name: 'message_history_read',
      arguments: { target: 'channel:react' },
    });
    assert.deepEqual(
      (after.structuredContent as { messages: { reactions: unknown[] }[] }).messages[0]?.reactions,
      [{ emoji: '👍', authors: ['agent:a1'] }],
    );
  });

  await t.test('the legacy alias serves the same inventory', async () => {
    const legacy = `${d.url}/mcp/agentteam/local/a1`;
    const res = await rpc(legacy, rt.token(), { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const canonical = await rpc(rt.mcpUrl, rt.token(), {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body, canonical.body);
    const aliasClient = await connect(legacy, rt.token());
    assert.deepEqual(
      (await aliasClient.listTools()).tools.map((x) => x.name),
      MCP_TOOLS.map((x) => x.name),
    );
    await aliasClient.close();
  });
});
