import { test } from 'node:test';
import { request, type ClientRequest } from 'node:http';
import { strict as assert } from 'node:assert';
import { openLease, operatorToken } from '../../devkit/lease.js';
import { rawRequest, rpc } from '../../devkit/http.js';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { connectAgent, connectApp } from '../../devkit/client-tools.js';

test('client tools: credentials stay in their lanes', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  const runtimeToken = agent.token();
  const opToken = operatorToken(d);

  await t.test(
    'a runtime token on /api/v1/* is refused (403), the event stream included',
    async () => {
      await assert.rejects(connectApp(d, { token: runtimeToken }), /event stream failed: 403/);
      for (const [method, path] of [
        ['GET', '/api/v1/events?client_tools=1'],
        ['POST', '/api/v1/client-tools'],
        ['GET', '/api/v1/client-tools/requests?pending=1'],
        ['POST', '/api/v1/client-tools/requests/x/claim'],
        ['POST', '/api/v1/client-tools/requests/x/result'],
      ] as const) {
        const r = await rawRequest(
          new URL(path, d.url).toString(),
          method,
          { authorization: `Bearer ${runtimeToken}`, 'content-type': 'application/json' },
          method === 'POST' ? '{}' : undefined,
        );
        assert.equal(r.status, 403, `${method} ${path}`);
        assert.equal(JSON.parse(r.body).error.code, 'forbidden');
      }
    },
  );

  await t.test('the operator token on runtime routes is refused (403)', async () => {
    const list = await rpc(agent.mcpUrl, opToken, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(list.status, 403);
    const stream = await rawRequest(agent.mcpUrl, 'GET', {
      authorization: `Bearer ${opToken}`,
      accept: 'text/event-stream',
    });
    assert.equal(stream.status, 403);
    const exec = `${agent.mcpUrl.replace('/api/internal/mcp/', '/api/internal/exec/')}/catalog`;
    assert.equal(
      (await rawRequest(exec, 'GET', { authorization: `Bearer ${opToken}` })).status,
      403,
    );
  });

  await t.test(
    'heartbeats: a frame every heartbeat_s keeps the stream visibly alive; seq stays contiguous',
    async () => {
      const app = await connectApp(d, { query: '?heartbeat_s=1' });
      try {
        assert.equal(app.frames[0]!.data.heartbeat_s, 1);
        const beat = await app.next((f) => f.type === 'heartbeat', 3000);
        assert.equal(beat.seq, 2);
      } finally {
        app.close();
      }
      const bad = await rawRequest(
        new URL('/api/v1/events?heartbeat_s=0', d.url).toString(),
        'GET',
        { authorization: `Bearer ${opToken}` },
      );
      assert.equal(bad.status, 400);
    },
  );

  await t.test(
    'notification streams on the MCP endpoint are bounded per runtime (4), and close on revocation',
    async () => {
      const open: ClientRequest[] = [];
      const openOne = () =>
        new Promise<number>((resolve, reject) => {
          const req = request(
            agent.mcpUrl,
            { headers: { authorization: `Bearer ${runtimeToken}`, accept: 'text/event-stream' } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end();
          open.push(req);
        });
      try {
        // The SDK client of `agent` already holds one.
        const statuses = [await openOne(), await openOne(), await openOne(), await openOne()];
        assert.deepEqual(statuses, [200, 200, 200, 409]);
      } finally {
        for (const r of open) r.destroy();
      }
      // A runtime's stream ends when its authorization is revoked (its lease closes).
      const short = await openLease(d, { serverId: 'local', agentId: 'a9' });
      const ended = await new Promise<boolean>((resolve, reject) => {
        const req = request(
          short.mcpUrl,
          { headers: { authorization: `Bearer ${short.token()}`, accept: 'text/event-stream' } },
          (res) => {
            assert.equal(res.statusCode, 200);
            res.resume();
            res.on('end', () => resolve(true));
            res.on('error', () => resolve(true));
            short.close();
          },
        );
        req.on('error', reject);
        req.end();
        setTimeout(() => resolve(false), 3000);
      });
      assert.equal(ended, true);
    },
  );

  await t.test('an operator stream works and is refused without a token', async () => {
    const app = await connectApp(d);
    app.close();
    await assert.rejects(connectApp(d, { token: 'nope' }), /403/);
  });
});
