import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../../daemon/server.js';
import { BUSY_BODY, FORBIDDEN_BODY } from '../../daemon/http/runtime-auth.js';
import { MAX_INFLIGHT_PER_AUTH, MAX_INFLIGHT_TOTAL } from '../../daemon/auth/limits.js';
import { waitFor } from '../../devkit/wait.js';

/**
 * Opens a POST whose headers announce a body that never comes: the action
 * route is left waiting in its body read, holding the admission slot.
 */
function slowPost(
  port: number,
  path: string,
  token: string,
): Promise<{ socket: Socket; response: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const response = new Promise<string>((r) => {
      socket.setEncoding('utf8').on('data', (d: string) => {
        data += d;
        if (/\r\n\r\n[\s\S]*\}$/.test(data)) r(data);
      });
      socket.on('close', () => r(data));
    });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
      );
      resolve({ socket, response });
    });
    socket.once('error', reject);
  });
}

test('the 33rd request of one authorization and the 1025th of the daemon get 409 busy before their bodies are read', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-h2-adm-'));
  const daemon = await startDaemon({ home, log: () => undefined });
  const sockets: Socket[] = [];
  t.after(async () => {
    for (const s of sockets) s.destroy();
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const port = Number(new URL(daemon.url).port);
  const auths: { path: string; token: string }[] = [];
  for (let i = 0; i < MAX_INFLIGHT_TOTAL / MAX_INFLIGHT_PER_AUTH + 1; i++) {
    const a = await daemon.store.create({ serverId: 's', agentId: `a${i}` });
    auths.push({
      path: `/api/internal/exec/servers/s/agents/a${i}/task/create`,
      token: readFileSync(a.tokenFile, 'utf8'),
    });
  }
  const hold = async (k: number, n: number) => {
    for (let i = 0; i < n; i++)
      sockets.push((await slowPost(port, auths[k]!.path, auths[k]!.token)).socket);
  };

  await hold(0, MAX_INFLIGHT_PER_AUTH);
  assert.ok(await waitFor(() => daemon.store.stats().inFlight === MAX_INFLIGHT_PER_AUTH, 3000));
  const over = await slowPost(port, auths[0]!.path, auths[0]!.token);
  sockets.push(over.socket);
  const r33 = await over.response;
  assert.match(r33, /^HTTP\/1\.1 409 /);
  assert.ok(r33.endsWith(BUSY_BODY), r33);
  // Another authorization is not affected by the first one's limit.
  const other = await slowPost(port, auths[1]!.path, auths[1]!.token);
  sockets.push(other.socket);
  assert.ok(await waitFor(() => daemon.store.stats().inFlight === MAX_INFLIGHT_PER_AUTH + 1, 3000));

  const holders = [];
  for (let k = 1; k < MAX_INFLIGHT_TOTAL / MAX_INFLIGHT_PER_AUTH; k++)
    holders.push(hold(k, k === 1 ? MAX_INFLIGHT_PER_AUTH - 1 : MAX_INFLIGHT_PER_AUTH));
  await Promise.all(holders);
  assert.ok(
    await waitFor(() => daemon.store.stats().inFlight === MAX_INFLIGHT_TOTAL, 5000),
    `in flight ${daemon.store.stats().inFlight}`,
  );
  const last = auths[auths.length - 1]!;
  const r1025 = await slowPost(port, last.path, last.token);
  sockets.push(r1025.socket);
  const res = await r1025.response;
  assert.match(res, /^HTTP\/1\.1 409 /);
  assert.ok(res.endsWith(BUSY_BODY));

  // Slots come back when the clients give up (handlers end on the aborted read).
  for (const s of sockets) s.destroy();
  assert.ok(
    await waitFor(() => daemon.store.stats().inFlight === 0, 3000),
    `in flight ${daemon.store.stats().inFlight}`,
  );
});

test('revocation cancels in-flight requests: a handler waiting on its body answers 403, never success', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-h2-drain-'));
  const daemon = await startDaemon({ home, log: () => undefined });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const port = Number(new URL(daemon.url).port);
  const auth = await daemon.store.create({ serverId: 's', agentId: 'a' });
  const token = readFileSync(auth.tokenFile, 'utf8');
  const pending = await Promise.all(
    [1, 2, 3].map(() => slowPost(port, '/api/internal/exec/servers/s/agents/a/task/create', token)),
  );
  t.after(() => {
    for (const p of pending) p.socket.destroy();
  });
  assert.ok(await waitFor(() => daemon.store.stats().inFlight === 3, 3000));
  await daemon.store.revoke(auth.id, 'test');
  for (const p of pending) {
    const res = await p.response;
    assert.match(res, /^HTTP\/1\.1 403 /);
    assert.ok(res.endsWith(FORBIDDEN_BODY));
  }
  assert.ok(await waitFor(() => daemon.store.stats().inFlight === 0, 1000));
});
