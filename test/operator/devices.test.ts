import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { strict as assert } from 'node:assert';
import { DEVICE_ROUTES } from '../../catalog/operator/device-scope.js';
import { OPERATOR_API } from '../../catalog/operator/table.js';
import { call, closeHttp } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime } from '../../devkit/daemon.js';
import { operatorToken } from '../../devkit/lease.js';
import { openStream } from '../../devkit/unix-socket.js';

/**
 * Paired devices, through the daemon and the CLI: `device pair` prints a
 * one-time code, an app exchanges it for a token limited to the person's
 * side, reads a conversation and decides an approval with it, is refused
 * every other row of the operator API, Exec, MCP and the runtime routes, and
 * a revocation holds from the next request on and ends its event stream.
 */

const json = (r: { stdout: string }) => JSON.parse(r.stdout);

async function http(
  url: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const r = await fetch(new URL(path, url), {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** A path of a row with every `:param` filled by a placeholder. */
const filled = (path: string) => path.replace(/:([A-Za-z]+)/g, (_, p: string) => `x_${p}`);

test('a paired device: code, exchange, the person\u2019s side only, revoked at once', async (t) => {
  // The profile names its person: a device paired here acts as human:ana and no one else.
  const home = mkdtempSync(join(tmpdir(), 'agentteam-devices-'));
  writeFileSync(join(home, 'profile.json'), JSON.stringify({ person: 'ana', agents: [] }));
  const d = await startDaemon({ home });
  t.after(async () => {
    closeHttp();
    await d.close();
  });
  const pair = json(await cli(d.home, ['device', 'pair']));
  assert.equal(pair.ok, true);
  assert.match(pair.data.code, /^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
  const exchange = (code: string, name = 'phone') =>
    http(d.url, 'POST', '/api/v1/devices/tokens', null, { code, name });
  const got = await exchange(pair.data.code.toLowerCase());
  assert.equal(got.status, 201, JSON.stringify(got.body));
  const token = got.body.data.token as string;
  const deviceId = got.body.data.device.id as string;
  assert.match(deviceId, /^dev_[0-9a-z]{16}$/);

  await t.test('the code is spent by its first exchange', async () => {
    const again = await exchange(pair.data.code);
    assert.equal(again.status, 403);
    assert.equal(again.body.code, 'forbidden');
    assert.equal(again.body.error.code, 'forbidden');
  });

  await t.test('the store keeps the token only as a hash; the device is listed', async () => {
    const list = json(await cli(d.home, ['device', 'list']));
    assert.deepEqual(
      list.data.devices.map((x: { id: string; name: string }) => [x.id, x.name]),
      [[deviceId, 'phone']],
    );
    const db = new Database(join(d.home, 'store.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT id, token_hash FROM devices').all() as {
        id: string;
        token_hash: string;
      }[];
      const secret = token.split('.').pop()!;
      assert.deepEqual(rows, [
        { id: deviceId, token_hash: createHash('sha256').update(secret).digest('hex') },
      ]);
    } finally {
      db.close();
    }
  });

  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());

  await t.test('it reads a conversation and posts as a person', async () => {
    const posted = await http(d.url, 'POST', '/api/v1/messages', operatorToken(d), {
      serverId: 'local',
      target: 'channel:general',
      author: 'human:ana',
      content: 'hello from the terminal',
    });
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    const read = await http(
      d.url,
      'GET',
      '/api/v1/messages?serverId=local&target=channel:general',
      token,
    );
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(read.body.data.messages[0].content, 'hello from the terminal');
    const own = await http(d.url, 'POST', '/api/v1/messages', token, {
      serverId: 'local',
      target: 'channel:general',
      author: 'human:ana',
      content: 'and from the phone',
    });
    assert.equal(own.status, 201, JSON.stringify(own.body));
    const asAgent = await http(d.url, 'POST', '/api/v1/messages', token, {
      serverId: 'local',
      target: 'channel:general',
      author: 'agent:a1',
      content: 'pretending',
    });
    assert.equal(asAgent.status, 400, 'never as an agent');
    assert.equal(asAgent.body.code, 'validation_failed');
    const asOther = await http(d.url, 'POST', '/api/v1/messages', token, {
      serverId: 'local',
      target: 'channel:general',
      author: 'human:bob',
      content: 'pretending to be Bob',
    });
    assert.equal(asOther.status, 403, 'never as another person');
    assert.equal(asOther.body.code, 'forbidden');
    // The operator's own credential still writes as whoever it names.
    const byOperator = await http(d.url, 'POST', '/api/v1/messages', operatorToken(d), {
      serverId: 'local',
      target: 'channel:general',
      author: 'human:bob',
      content: 'Bob at the terminal',
    });
    assert.equal(byOperator.status, 201, JSON.stringify(byOperator.body));
  });

  await t.test('it decides an approval an agent asked for', async () => {
    const asked = await call(rt, 'approval', 'request', { title: 'deploy?' });
    const id = asked.json.data.approval.id as string;
    const seen = await http(d.url, 'GET', `/api/v1/approvals/${id}`, token);
    assert.equal(seen.status, 200, JSON.stringify(seen.body));
    const asOther = await http(d.url, 'POST', `/api/v1/approvals/${id}/decide`, token, {
      decision: 'approve',
      decidedBy: 'human:bob',
    });
    assert.equal(asOther.status, 403, 'never decided in another person\u2019s name');
    assert.equal(asOther.body.code, 'forbidden');
    // Without a name the device decides as the profile's person.
    const decided = await http(d.url, 'POST', `/api/v1/approvals/${id}/decide`, token, {
      decision: 'approve',
    });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.equal(decided.body.data.approval.status, 'approved');
    assert.equal(decided.body.data.approval.decidedBy, 'human:ana');
  });

  await t.test(
    'every row outside the device list is refused before its input is read',
    async () => {
      const allowed = new Set<string>([...DEVICE_ROUTES, 'devices.exchange']);
      const rows = OPERATOR_API.filter((r) => !allowed.has(r.name));
      assert.ok(rows.length > 30);
      for (const row of rows) {
        const r = await http(
          d.url,
          row.method,
          filled(row.path),
          token,
          row.method === 'GET' || row.method === 'DELETE' ? undefined : {},
        );
        assert.equal(r.status, 403, `${row.name}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'forbidden', row.name);
        assert.equal(r.body.error.code, 'forbidden', row.name);
      }
      // And the rows it may call are not refused for who it is.
      for (const row of OPERATOR_API.filter((r) => DEVICE_ROUTES.includes(r.name as never))) {
        if (row.name === 'events.open') continue;
        const r = await http(
          d.url,
          row.method,
          filled(row.path),
          token,
          row.method === 'GET' ? undefined : {},
        );
        assert.notEqual(r.body?.error?.code, 'forbidden', row.name);
      }
    },
  );

  await t.test('Exec, MCP, token analysis and metrics refuse a device token', async () => {
    for (const [method, path] of [
      ['POST', '/api/internal/exec/servers/local/agents/a1/message/send'],
      ['GET', '/api/internal/exec/servers/local/agents/a1/catalog'],
      ['POST', '/api/internal/mcp/servers/local/agents/a1'],
      ['POST', '/mcp/agentteam/local/a1'],
      ['GET', '/api/internal/token-analysis/surface'],
      ['GET', '/metrics'],
    ] as const) {
      const r = await fetch(new URL(path, d.url), {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      assert.ok(r.status === 401 || r.status === 403, `${path}: ${r.status}`);
      await r.body?.cancel();
    }
  });

  await t.test('a revoked device is refused at once and its event stream ends', async () => {
    const stream = await openStream({ url: d.url }, '/api/v1/events', {
      authorization: `Bearer ${token}`,
    });
    await stream.next((f) => f.type === 'hello');
    const revoked = json(await cli(d.home, ['device', 'revoke', deviceId]));
    assert.deepEqual(revoked.data, { id: deviceId, revoked: true });
    await stream.ended;
    const after = await http(d.url, 'GET', '/api/v1/approvals/servers', token);
    assert.equal(after.status, 403);
    assert.equal(after.body.code, 'forbidden');
    assert.deepEqual(json(await cli(d.home, ['device', 'list'])).data.devices, []);
    const twice = await cli(d.home, ['device', 'revoke', deviceId]);
    assert.equal(json(twice).body?.code ?? json(twice).error.code, 'not_found');
  });
});
