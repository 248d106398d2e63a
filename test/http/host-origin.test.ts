import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon } from '../../daemon/server.js';
import { ListenError } from '../../daemon/lifecycle/listen.js';
import { cliEnv } from '../../devkit/daemon.js';
import { requestLease, operatorToken } from '../../devkit/lease.js';
import { send, type RawResponse } from '../../devkit/http.js';

const JSON_RPC_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

async function daemonWithLease(
  t: import('node:test').TestContext,
  opts: { allowRemote?: boolean; allowHosts?: string[] } = {},
) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-host-'));
  const daemon = await startDaemon({ home, log: () => undefined, ...opts });
  const op = operatorToken(home);
  const lease = await requestLease(daemon.url, op, { serverId: 's', agentId: 'a' });
  t.after(async () => {
    lease.close();
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const port = Number(new URL(daemon.url).port);
  const token = lease.token();
  /** One request of each route family, with the given extra headers (Host may be overridden). */
  const families: Record<string, (h: Record<string, string>) => Promise<RawResponse>> = {
    exec: (h) =>
      send(
        `${lease.body.data!.execBaseUrl}/task/list`,
        'POST',
        { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...h },
        '{}',
      ),
    mcp: (h) =>
      send(
        lease.body.data!.mcpUrl,
        'POST',
        {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...h,
        },
        JSON_RPC_LIST,
      ),
    mcpLegacy: (h) =>
      send(
        `${daemon.url}/mcp/agentteam/s/a`,
        'POST',
        {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...h,
        },
        JSON_RPC_LIST,
      ),
    operator: (h) =>
      send(`${daemon.url}/api/v1/status`, 'GET', { authorization: `Bearer ${op}`, ...h }),
  };
  return { daemon, port, families, lease, token, op };
}

function assertRefused(family: string, r: RawResponse, what: string): void {
  assert.equal(r.status, 403, `${family} ${what}: ${r.body}`);
  const body = JSON.parse(r.body) as { error: { code: number | string; message: string } };
  if (family.startsWith('mcp')) assert.equal(body.error.code, -32001, r.body);
  else assert.equal(body.error.code, 'forbidden', r.body);
  assert.match(
    body.error.message,
    /^Forbidden: the (Host header is not an address|Origin is not) of this daemon|^Forbidden: the Origin is not this daemon$/,
  );
}

test('Host and Origin: one check for Exec, MCP and operator routes, before credentials', async (t) => {
  const { port, families } = await daemonWithLease(t);
  // A loopback name without its port is loopback all the same (issue: it was refused although the names are accepted).
  const goodHosts = [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `LOCALHOST:${port}`,
    `127.0.0.2:${port}`,
    `127.255.255.254:${port}`,
    `[::1]:${port}`,
    '127.0.0.1',
    'localhost',
    '[::1]',
    '127.0.0.9',
  ];
  const badHosts = [
    `evil.example:${port}`,
    'evil.example',
    'localhost.',
    '128.0.0.1',
    '[::2]',
    `127.0.0.1:${port + 1}`,
    `localhost.:${port}`,
    `127.0.0.256:${port}`,
    `128.0.0.1:${port}`,
    `0.0.0.0:${port}`,
    `[::2]:${port}`,
    `localhost.evil.example:${port}`,
    `127.0.0.1.nip.io:${port}`,
  ];
  const goodOrigins = [
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `http://[::1]:${port}`,
    `http://127.9.9.9:${port}`,
  ];
  const badOrigins = [
    'http://evil.example',
    `http://evil.example:${port}`,
    'null',
    `https://127.0.0.1:${port}`,
    'http://localhost:3000',
    `http://127.0.0.1:${port + 1}`,
    'http://127.0.0.1',
    'file://',
    `http://u:p@127.0.0.1:${port}`,
    'not a url',
  ];
  for (const [family, call] of Object.entries(families)) {
    for (const host of goodHosts)
      assert.equal((await call({ host })).status, 200, `${family} Host ${host}`);
    for (const host of badHosts) assertRefused(family, await call({ host }), `Host ${host}`);
    // The HTTP layer itself already answers 400 to a Host its URL parser rewrites.
    assert.equal((await call({ host: `[::ffff:127.0.0.1]:${port}` })).status, 400);
    for (const origin of goodOrigins)
      assert.equal((await call({ origin })).status, 200, `${family} Origin ${origin}`);
    for (const origin of badOrigins)
      assertRefused(family, await call({ origin }), `Origin ${origin}`);
  }
  // Before authentication: a foreign Host without any credential gets the Host refusal, not the credential one.
  const bare = await send(`http://127.0.0.1:${port}/api/v1/status`, 'GET', {
    host: `evil.example:${port}`,
  });
  assert.match(bare.body, /Host header/);
  const noRoute = await send(`http://127.0.0.1:${port}/nowhere`, 'GET', {
    host: `evil.example:${port}`,
  });
  assert.equal(noRoute.status, 403);
});

test("the console's own host name: accepted on console paths only, as Host and as Origin, and no other *.localhost", async (t) => {
  const { daemon, port, families, op } = await daemonWithLease(t);
  const codes = await send(`${daemon.url}/api/v1/console/codes`, 'POST', {
    authorization: `Bearer ${op}`,
  });
  const name = new URL(JSON.parse(codes.body).data.url).host;
  assert.match(name, new RegExp(`^agentteam-[0-9a-f]{32}\\.localhost:${port}$`));
  // On a console path the guard lets it through (the console then answers: its login page).
  const login = (h: Record<string, string>) => send(`${daemon.url}/console/login`, 'GET', h);
  assert.equal((await login({ host: name })).status, 200);
  assert.equal((await login({ host: name.toUpperCase() })).status, 200);
  assert.equal((await login({ host: name, origin: `http://${name}` })).status, 200);
  for (const host of [
    'agentteam.localhost',
    `x${name}`,
    name.replace(/\.localhost:/, '.localhost.:'),
    name.replace(/:\d+$/, `:${port + 1}`),
    name.replace(/:\d+$/, ''),
  ]) {
    assert.equal((await login({ host })).status, 403, `Host ${host}`);
  }
  assert.equal(
    (await login({ host: `127.0.0.1:${port}`, origin: `http://agentteam.localhost:${port}` }))
      .status,
    403,
  );
  // Anywhere else it is no address of the daemon.
  for (const [family, call] of Object.entries(families)) {
    assertRefused(family, await call({ host: name }), `Host ${name}`);
    assertRefused(family, await call({ origin: `http://${name}` }), `Origin ${name}`);
  }
});

test('the official MCP SDK client works through the check', async (t) => {
  const { lease, token } = await daemonWithLease(t);
  const client = new Client({ name: 'host-origin-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(lease.body.data!.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.after(() => client.close());
  assert.ok((await client.listTools()).tools.length > 0);
});

test('--allow-host adds names only with --allow-remote', async (t) => {
  const { port, families } = await daemonWithLease(t, {
    allowRemote: true,
    allowHosts: ['Agents.Example.test', '10.0.0.7'],
  });
  for (const call of Object.values(families)) {
    assert.equal((await call({ host: `agents.example.test:${port}` })).status, 200);
    assert.equal(
      (await call({ host: `10.0.0.7:${port}`, origin: `http://AGENTS.example.test:${port}` }))
        .status,
      200,
    );
    assert.equal((await call({ host: `other.example.test:${port}` })).status, 403);
    assert.equal((await call({ host: `agents.example.test:${port + 1}` })).status, 403);
  }
  const home = mkdtempSync(join(tmpdir(), 'agentteam-host-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  await assert.rejects(
    startDaemon({ home, allowHosts: ['x.test'], log: () => undefined }),
    (e: unknown) => e instanceof ListenError && /--allow-host needs --allow-remote/.test(e.message),
  );
  await assert.rejects(
    startDaemon({ home, allowRemote: true, allowHosts: ['x.test:80'], log: () => undefined }),
    ListenError,
  );
  await assert.rejects(
    startDaemon({ home, allowRemote: true, allowHosts: ['*.test'], log: () => undefined }),
    ListenError,
  );
  const r = await cliEnv(['daemon', 'start', '--foreground', '--allow-host', 'x.test'], {
    ...process.env,
    AGENTTEAM_HOME: home,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, 'agentteam: --allow-host needs --allow-remote\n');
});
