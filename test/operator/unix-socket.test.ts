import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SOCKET_REFUSED_ROUTES } from '../../catalog/operator/device-scope.js';
import { OPERATOR_API } from '../../catalog/operator/table.js';
import { startDaemon } from '../../devkit/daemon.js';
import { callFrom, connectAgent, echoTool } from '../../devkit/client-tools.js';
import { openStream, overSocket, socketOf } from '../../devkit/unix-socket.js';

/**
 * The operator API on the owner-only unix socket of the home: no token,
 * the same handlers, only /api/v1 and never the rows that start runtimes;
 * the file's modes; the check of every connection; a link planted at the
 * path; a socket left by a daemon that died; the socket gone at stop.
 */

/** A path of a row with every `:param` filled by a placeholder. */
const filled = (path: string) => path.replace(/:([A-Za-z]+)/g, (_, p: string) => `x_${p}`);

test('over the socket an app registers a client tool and answers an agent, with no token', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const sock = socketOf(d.home);

  await t.test('the directory is 0700 and the socket 0600, both owned by this user', () => {
    const dir = statSync(join(d.home, 'sock'));
    const s = lstatSync(sock);
    assert.equal(dir.mode & 0o777, 0o700);
    assert.ok(s.isSocket());
    assert.equal(s.mode & 0o777, 0o600);
    assert.equal(s.uid, process.getuid!());
  });

  const app = await openStream({ socketPath: sock }, '/api/v1/events?client_tools=1');
  t.after(() => app.close());
  const hello = await app.next((f) => f.type === 'hello');
  const clientId = hello.data.client_id as string;
  assert.match(clientId, /^c_/);
  const reg = await overSocket(sock, 'POST', '/api/v1/client-tools', {
    client_id: clientId,
    group: 'desk',
    tools: [echoTool('desk_echo')],
  });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  assert.deepEqual(reg.body.data.tools, ['desk_echo']);

  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  const pending = callFrom(agent, 'desk_echo', { text: 'over the socket' });
  const req = await app.next((f) => f.type === 'client_tool.request');
  assert.deepEqual(req.data.arguments, { text: 'over the socket' });
  const id = req.data.request_id as string;
  const claim = await overSocket(sock, 'POST', `/api/v1/client-tools/requests/${id}/claim`, {
    client_id: clientId,
  });
  assert.equal(claim.status, 200, JSON.stringify(claim.body));
  const content = [{ type: 'text', text: 'answered over the socket' }];
  const ans = await overSocket(sock, 'POST', `/api/v1/client-tools/requests/${id}/result`, {
    client_id: clientId,
    ok: true,
    content,
  });
  assert.equal(ans.status, 200, JSON.stringify(ans.body));
  const result = await pending;
  assert.notEqual(result.isError, true);
  assert.deepEqual(result.content, content);

  await t.test('an error on the socket carries the top-level code beside error.code', async () => {
    const r = await overSocket(sock, 'POST', `/api/v1/client-tools/requests/${id}/result`, {
      client_id: clientId,
      ok: true,
      content,
    });
    assert.equal(r.status, 409);
    assert.equal(r.body.ok, false);
    assert.equal(r.body.error.code, 'already_settled');
    assert.equal(r.body.code, 'already_settled');
  });

  await t.test(
    'no lease or credential row is served on the socket, whatever the input',
    async () => {
      const refused = new Set<string>(SOCKET_REFUSED_ROUTES);
      const rows = OPERATOR_API.filter((r) => refused.has(r.name));
      assert.equal(rows.length, refused.size);
      for (const row of rows) {
        const r = await overSocket(sock, row.method, filled(row.path), {});
        assert.equal(r.status, 403, `${row.name}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'forbidden', row.name);
        assert.equal(r.body.error.code, 'forbidden', row.name);
      }
    },
  );

  await t.test(
    'Exec, MCP, token analysis, metrics and the console are not on the socket',
    async () => {
      for (const [method, path] of [
        ['POST', '/api/internal/exec/servers/local/agents/a1/message/send'],
        ['GET', '/api/internal/exec/servers/local/agents/a1/catalog'],
        ['POST', '/api/internal/mcp/servers/local/agents/a1'],
        ['POST', '/mcp/agentteam/local/a1'],
        ['GET', '/api/internal/token-analysis/surface'],
        ['GET', '/metrics'],
        ['GET', '/console/'],
      ] as const) {
        const r = await overSocket(sock, method, path, method === 'POST' ? {} : undefined);
        assert.equal(r.status, 404, `${path}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'not_found', path);
      }
    },
  );

  await t.test('the operator rows answer on the socket as on TCP with the token', async () => {
    const r = await overSocket(sock, 'GET', '/api/v1/status');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.pid, d.pid);
  });

  await t.test('a peer of another uid is refused', async (tt) => {
    if (process.getuid!() !== 0) {
      tt.skip('needs root to run a client as another uid');
      return;
    }
    // As the files stand (0700 directory), the kernel refuses the other uid.
    assert.match(await asNobody(sock), /EACCES/);
    // Opened up by hand (only the owner or root can): the kernel would let it in, the daemon's check does not.
    chmodSync(d.home, 0o711);
    chmodSync(join(d.home, 'sock'), 0o711);
    chmodSync(sock, 0o666);
    try {
      assert.match(await asNobody(sock), /ECONNRESET|socket hang up|EPIPE/);
      // The owner is refused too while the file is not private: nothing is served through it.
      await assert.rejects(overSocket(sock, 'GET', '/api/v1/status'));
    } finally {
      chmodSync(sock, 0o600);
      chmodSync(join(d.home, 'sock'), 0o700);
      chmodSync(d.home, 0o700);
    }
    assert.equal((await overSocket(sock, 'GET', '/api/v1/status')).status, 200);
  });

  await t.test('the socket is removed at stop', async () => {
    await d.stop();
    assert.equal(existsSync(sock), false);
  });
});

/** A request over the socket from a child running as nobody (65534): its error code or status. */
function asNobody(sock: string): Promise<string> {
  const script = `
    process.setgid(65534); process.setuid(65534);
    const r = require('node:http').request({ socketPath: ${JSON.stringify(sock)}, path: '/api/v1/status' }, (res) => {
      process.stdout.write('status ' + res.statusCode); process.exit(0);
    });
    r.on('error', (e) => { process.stdout.write(String(e.code || e.message)); process.exit(0); });
    r.end();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', () => resolve(out));
  });
}

test('the socket path: a planted link is not followed, a dead daemon socket is replaced, a live one is not', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-sock-'));
  const outside = mkdtempSync(join(tmpdir(), 'agentteam-sock-target-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  const target = join(outside, 'victim');
  writeFileSync(target, 'keep me', { mode: 0o644 });
  const d = await startDaemon({ home });
  t.after(() => d.close());
  const sock = socketOf(home);
  await d.stop();

  await t.test(
    'a link planted at the path is removed as a link; its target is untouched',
    async () => {
      symlinkSync(target, sock);
      await d.start();
      const s = lstatSync(sock);
      assert.ok(s.isSocket(), 'the path is the daemon socket again');
      assert.equal(s.mode & 0o777, 0o600);
      assert.equal(readFileSync(target, 'utf8'), 'keep me');
      assert.equal(statSync(target).mode & 0o777, 0o644);
      assert.equal((await overSocket(sock, 'GET', '/api/v1/status')).status, 200);
    },
  );

  await t.test('a socket left by a killed daemon is replaced', async () => {
    d.kill9();
    await waitGone(d.pid);
    assert.ok(lstatSync(sock).isSocket(), 'the dead daemon left its socket');
    await d.start();
    assert.equal((await overSocket(sock, 'GET', '/api/v1/status')).body.data.pid, d.pid);
  });

  await t.test(
    'a socket someone else listens on is left alone; the daemon serves HTTP',
    async () => {
      await d.stop();
      const other = createServer((c) => {
        // The daemon's probe connects and hangs up: not an error of this test.
        c.on('error', () => undefined);
        c.end('other\n');
      });
      await new Promise<void>((r) => other.listen(sock, r));
      t.after(() => other.close());
      await d.start();
      const got = await new Promise<string>((resolve) => {
        const c = connect(sock);
        let s = '';
        c.on('data', (b: Buffer) => (s += b));
        c.on('end', () => resolve(s));
      });
      assert.equal(got, 'other\n');
      const r = await fetch(new URL('/api/v1/status', d.url), {
        headers: {
          authorization: `Bearer ${readFileSync(join(home, 'operator.token'), 'utf8').trim()}`,
        },
      });
      assert.equal(r.status, 200);
      await d.stop();
      assert.ok(existsSync(sock), 'the daemon does not remove a socket it did not bind');
      other.close();
    },
  );
});

async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`pid ${pid} still alive`);
}
