import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLease } from '../../devkit/lease.js';
import { rawRequest, rpc } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';

/** The MCP route's edges: the transport (origin, versions, batches, methods), credentials, the delegated-child gate. */
test('MCP route: transport edges, credentials and the delegated-child gate', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());

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
