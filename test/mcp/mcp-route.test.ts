import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { LIMITS } from '../../catalog/limits.js';
import { openLease } from '../../devkit/lease.js';
import { rawRequest, rpc } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';

async function connect(
  url: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: 'mcp-route-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return content[0]?.text ?? '';
}

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

  await t.test('tool failures are isError results the model can act on', async () => {
    const noTarget = await client.callTool({
      name: 'message_send',
      arguments: { content: 'no target' },
    });
    assert.equal(noTarget.isError, true);
    const env = JSON.parse(textOf(noTarget)) as {
      ok: boolean;
      error: { code: string; details: { path: string }[] };
    };
    assert.equal(env.ok, false);
    assert.equal(env.error.code, 'validation_failed');
    assert.ok(env.error.details.some((x) => x.path === '/target'));
    const badTarget = await client.callTool({
      name: 'message_send',
      arguments: { target: 'general', content: 'x' },
    });
    assert.equal(badTarget.isError, true);
    const missing = await client.callTool({
      name: 'message_react',
      arguments: { messageId: 'msg_000000000000', emoji: '👍' },
    });
    assert.equal(missing.isError, true);
    assert.equal(
      (JSON.parse(textOf(missing)) as { error: { code: string } }).error.code,
      'not_found',
    );
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);
  });

  await t.test(
    'a page over the 64 KiB result budget is refused with continuation advice, never cut',
    async () => {
      // Control characters, 6 bytes each as JSON: eight of the longest messages are over the budget.
      const big = '\u0001'.repeat(LIMITS.messageContent.chars);
      for (let i = 0; i < 8; i++) {
        const r = await client.callTool({
          name: 'message_send',
          arguments: { target: 'channel:big', content: big },
        });
        assert.notEqual(r.isError, true, textOf(r));
      }
      const over = await client.callTool({
        name: 'message_history_read',
        arguments: { target: 'channel:big', limit: 8 },
      });
      assert.equal(over.isError, true);
      const env = JSON.parse(textOf(over)) as {
        error: {
          code: string;
          hint: string;
          next: { action: string; input: { target: string; limit: number } };
        };
      };
      assert.equal(env.error.code, 'result_budget_exceeded');
      assert.equal(env.error.next.action, 'message_history_read');
      assert.equal(env.error.next.input.target, 'channel:big');
      assert.ok(env.error.next.input.limit >= 1 && env.error.next.input.limit < 8);
      const fits = await client.callTool({
        name: 'message_history_read',
        arguments: env.error.next.input,
      });
      assert.notEqual(fits.isError, true, textOf(fits));
      assert.equal(
        (fits.structuredContent as { messages: unknown[] }).messages.length,
        env.error.next.input.limit,
      );
    },
  );

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

  await t.test(
    'transport edges: origin, protocol version, batch, notifications, methods',
    async () => {
      const tok = rt.token();
      const list = { jsonrpc: '2.0', id: 7, method: 'tools/list' };
      assert.equal(
        (await rpc(rt.mcpUrl, tok, list, { origin: 'http://evil.example' })).status,
        403,
      );
      // Another local origin (a dev server on another port) is foreign too; the daemon's own origin passes.
      assert.equal(
        (await rpc(rt.mcpUrl, tok, list, { origin: 'http://localhost:3000' })).status,
        403,
      );
      assert.equal(
        (await rpc(rt.mcpUrl, tok, list, { origin: `http://localhost:${new URL(rt.mcpUrl).port}` }))
          .status,
        200,
      );
      const bad = await rpc(rt.mcpUrl, tok, list, { 'mcp-protocol-version': '1999-01-01' });
      assert.equal(bad.status, 400);
      assert.equal(
        (await rpc(rt.mcpUrl, tok, list, { 'mcp-protocol-version': '2025-03-26' })).status,
        200,
      );
      const batch = await rpc(rt.mcpUrl, tok, [list, list]);
      assert.equal(batch.status, 400);
      assert.equal((JSON.parse(batch.body) as { error: { code: number } }).error.code, -32600);
      const note = await rpc(rt.mcpUrl, tok, {
        jsonrpc: '2.0',
        method: 'notifications/initialized',
      });
      assert.equal(note.status, 202);
      assert.equal(note.body, '');
      const parse = await rawRequest(
        rt.mcpUrl,
        'POST',
        { authorization: `Bearer ${tok}`, 'content-type': 'application/json' },
        '{nope',
      );
      assert.equal((JSON.parse(parse.body) as { error: { code: number } }).error.code, -32700);
      const unknown = await rpc(rt.mcpUrl, tok, {
        jsonrpc: '2.0',
        id: 2,
        method: 'resources/list',
      });
      assert.equal((JSON.parse(unknown.body) as { error: { code: number } }).error.code, -32601);
      const init = await rpc(rt.mcpUrl, tok, {
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: {
          protocolVersion: '2030-01-01',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        },
      });
      assert.equal(
        (JSON.parse(init.body) as { result: { protocolVersion: string } }).result.protocolVersion,
        '2025-11-25',
      );
      const old = await rpc(rt.mcpUrl, tok, {
        jsonrpc: '2.0',
        id: 4,
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        },
      });
      assert.equal(
        (JSON.parse(old.body) as { result: { protocolVersion: string } }).result.protocolVersion,
        '2025-03-26',
      );
      for (const method of ['GET', 'DELETE']) {
        const r = await rawRequest(rt.mcpUrl, method, { authorization: `Bearer ${tok}` });
        assert.equal(r.status, 405, method);
      }
    },
  );

  await t.test('forged and mismatched credentials get the Exec 403 bytes', async () => {
    const tok = rt.token();
    const [head, payload, sig] = tok.split('.');
    const forged = [
      '',
      'Bearer',
      'Bearer not-a-token',
      `Bearer ${head}.${payload}.${(sig ?? '').split('').reverse().join('')}`,
      `Bearer ${tok}x`,
      `Basic ${tok}`,
      // A credential of another scope: the operator token.
      `Bearer ${readFileSync(join(d.home, 'operator.token'), 'utf8').trim()}`,
    ];
    const execCatalog = `${rt.env.AGENTTEAM_EXEC_BASE_URL}/catalog`;
    const reference = await rawRequest(execCatalog, 'GET', { authorization: 'Bearer not-a-token' });
    assert.equal(reference.status, 403);
    for (const auth of forged) {
      const headers: Record<string, string> = auth ? { authorization: auth } : {};
      for (const url of [rt.mcpUrl, `${d.url}/mcp/agentteam/local/a1`]) {
        const res = await rawRequest(
          url,
          'POST',
          { ...headers, 'content-type': 'application/json' },
          '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        );
        assert.equal(res.status, 403, auth);
        assert.equal(res.body, reference.body, auth);
      }
    }
    // A valid token on another agent's route: binding mismatch, same bytes.
    const other = await rpc(`${d.url}/api/internal/mcp/servers/local/agents/a2`, tok, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
    });
    assert.equal(other.status, 403);
    assert.equal(other.body, reference.body);
  });

  await t.test('delegated-child gate: a non-primary thread may read but not send', async () => {
    const lease = await openLease(d, {
      serverId: 'local',
      agentId: 'lead',
      primaryThreadId: 'thr_primary',
    });
    t.after(() => lease.close());
    const meta = (threadId: string) => ({ _meta: { 'agentteam/threadId': threadId } });
    const send = (threadId: string) =>
      rpc(lease.mcpUrl, lease.token(), {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'message_send',
          arguments: { target: 'channel:general', content: `from ${threadId}` },
          ...meta(threadId),
        },
      });
    const childSend = JSON.parse((await send('thr_child')).body) as {
      result: { isError: boolean; content: { text: string }[] };
    };
    assert.equal(childSend.result.isError, true);
    assert.match(childSend.result.content[0]?.text ?? '', /return your result to your leader/);
    const primarySend = JSON.parse((await send('thr_primary')).body) as {
      result: { isError: boolean };
    };
    assert.equal(primarySend.result.isError, false);
    const viaHeader = await rpc(
      lease.mcpUrl,
      lease.token(),
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'message_react', arguments: { messageId: 'msg_000000000000', emoji: 'x' } },
      },
      { 'x-agentteam-thread-id': 'thr_child' },
    );
    assert.match(viaHeader.body, /return your result to your leader/);
    const unknownTool = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'made_up', arguments: {}, ...meta('thr_child') },
    });
    assert.match(unknownTool.body, /return your result to your leader/);
    const childRead = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: {
        name: 'message_history_read',
        arguments: { target: 'channel:general', limit: 1 },
        ...meta('thr_child'),
      },
    });
    const read = JSON.parse(childRead.body) as {
      result: { isError: boolean; structuredContent: { messages: { content: string }[] } };
    };
    assert.equal(read.result.isError, false);
    assert.equal(read.result.structuredContent.messages[0]?.content, 'from thr_primary');
  });
});
