import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../../daemon/server.js';
import { ResultGate } from '../../daemon/results/gate.js';
import { SecretSet } from '../../daemon/masking/secrets.js';
import { SpillStore } from '../../daemon/results/spill.js';
import { buildApp } from '../../daemon/app.js';
import { EXEC_BASE } from '../../daemon/http/paths.js';
import { AuthorizationStore } from '../../daemon/auth/store.js';
import { createJoseSigner } from '../../daemon/auth/signer.js';
import { fsTokenWriter } from '../../daemon/auth/token-file.js';
import { pinCatalog } from '../../daemon/auth/pinned-catalog.js';
import { REVOKE_DRAIN_MS } from '../../daemon/auth/limits.js';
import { FORBIDDEN_BODY } from '../../daemon/http/runtime-auth.js';
import { defaultCatalog } from '../../catalog/index.js';
import { systemClock } from '../../lib/clock.js';
import { FakeClock } from '../../devkit/auth-clock.js';
import { waitFor } from '../../devkit/wait.js';
import { requestLease, operatorToken } from '../../devkit/lease.js';
import { send } from '../../devkit/http.js';

/**
 * Drain: revoking an authorization (a runtime's end, a replacement, daemon
 * stop) ends its in-flight requests with 403 and answers only once they are
 * released, within REVOKE_DRAIN_MS; a handler that ignores the signal still
 * cannot publish a success afterwards.
 */

async function inProcessDaemon(t: import('node:test').TestContext) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-repl-'));
  const daemon = await startDaemon({ home, log: () => undefined });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  return { daemon, op: operatorToken(home) };
}

async function slowUpload(
  t: import('node:test').TestContext,
  execBaseUrl: string,
  token: string,
  events: string[],
  inFlight: () => number,
) {
  const { port, pathname } = new URL(execBaseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  t.after(() => socket.destroy());
  const done = new Promise<string>((resolve) => {
    let data = '';
    socket.setEncoding('utf8').on('data', (d: string) => {
      data += d;
      if (/\r\n\r\n[\s\S]*\}$/.test(data)) {
        events.push('exec answered');
        resolve(data);
      }
    });
    socket.on('close', () => resolve(data));
  });
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  socket.write(
    `POST ${pathname}/task/create HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"title":"half`,
  );
  assert.ok(await waitFor(() => inFlight() === 1, 3000));
  return { done }; // wrapped: returning the promise itself would make the caller's await wait for the answer
}

test('drain: daemon stop ends an in-flight upload with 403 before it finishes stopping', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-stop-drain-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const daemon = await startDaemon({ home, log: () => undefined });
  const lease = await requestLease(daemon.url, operatorToken(home), {
    serverId: 's',
    agentId: 'a',
  });
  t.after(() => lease.close());
  const events: string[] = [];
  const { done: execDone } = await slowUpload(
    t,
    lease.body.data!.execBaseUrl,
    lease.token(),
    events,
    () => daemon.store.stats().inFlight,
  );
  const stopped = daemon.stop('test').then(() => events.push('stopped'));
  const [exec] = await Promise.all([execDone, stopped]);
  assert.match(exec, /^HTTP\/1\.1 403 /);
  assert.ok(exec.endsWith(FORBIDDEN_BODY));
  assert.deepEqual(events, ['exec answered', 'stopped']);
});

test('drain: revoking a runtime ends its in-flight upload with 403 and answers only after it', async (t) => {
  const { daemon, op } = await inProcessDaemon(t);
  const lease = await requestLease(daemon.url, op, { serverId: 's', agentId: 'a' });
  t.after(() => lease.close());
  const events: string[] = [];
  const { done: execDone } = await slowUpload(
    t,
    lease.body.data!.execBaseUrl,
    lease.token(),
    events,
    () => daemon.store.stats().inFlight,
  );

  const revoked = send(
    `${daemon.url}/api/v1/runtimes/${lease.body.data!.authorizationId}`,
    'DELETE',
    { authorization: `Bearer ${op}` },
  ).then((r) => {
    events.push('revoke answered');
    return r;
  });
  const [exec, rev] = await Promise.all([execDone, revoked]);
  assert.match(exec, /^HTTP\/1\.1 403 /);
  assert.ok(exec.endsWith(FORBIDDEN_BODY), 'no success after revocation');
  assert.equal(rev.status, 200, rev.body);
  assert.deepEqual(events, ['exec answered', 'revoke answered']);
  assert.equal(daemon.store.stats().inFlight, 0);
});

function bareStore(
  t: import('node:test').TestContext,
  clock = systemClock as import('../../lib/clock.js').Clock,
) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-drain-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const events: string[] = [];
  const store = new AuthorizationStore({
    clock,
    signer: createJoseSigner(clock, 12 * 3600),
    writer: fsTokenWriter,
    runtimeDir: join(home, 'runtime'),
    catalog: () => pinCatalog(defaultCatalog()),
    diag: (e) => events.push(e),
  });
  return { store, events };
}

test('drain: revoke waits for every admitted request to be released; repeated revokes share the wait', async (t) => {
  const { store } = bareStore(t);
  const auth = await store.create({ serverId: 's', agentId: 'a' });
  assert.ok(store.admit(auth) && store.admit(auth));
  let done = false;
  const first = store.revoke(auth.id, 'test').then(() => (done = true));
  const again = store.revoke(auth.id, 'test');
  assert.equal(auth.signal.aborted, true, 'in-flight work is cancelled at once');
  assert.equal(
    (await store.authenticate(readFileSync(auth.tokenFile, 'utf8'))).ok,
    false,
    'and the token refused at once',
  );
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(done, false);
  store.release(auth);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false, 'one request is still in flight');
  assert.equal(existsSync(auth.dir), true, 'the directory outlives the drain');
  store.release(auth);
  await Promise.all([first, again]);
  assert.equal(existsSync(auth.dir), false);
  await store.shutdown();
});

test(`drain is bounded: after ${REVOKE_DRAIN_MS} ms the revocation completes anyway`, async (t) => {
  const clock = new FakeClock(Date.now());
  const { store, events } = bareStore(t, clock);
  const auth = await store.create({ serverId: 's', agentId: 'a' });
  assert.ok(store.admit(auth));
  let done = false;
  const p = store.revoke(auth.id, 'test').then(() => (done = true));
  clock.advance(REVOKE_DRAIN_MS - 1);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false);
  clock.advance(1);
  await p;
  assert.ok(events.includes('drain_timeout'));
  store.release(auth); // the stuck request ending later changes nothing
  assert.equal(store.stats().inFlight, 0);
  await store.shutdown();
});

test('a handler that ignores the signal still cannot publish a success after revocation; the revoke waits for it', async (t) => {
  const { store } = bareStore(t);
  t.after(() => store.shutdown());
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const spillDir = mkdtempSync(join(tmpdir(), 'agentteam-drain-spill-'));
  t.after(() => rmSync(spillDir, { recursive: true, force: true }));
  const app = buildApp({
    store,
    operatorToken: 'unused',
    diag: () => undefined,
    listenHost: '127.0.0.1',
    port: () => 80,
    gate: new ResultGate(new SecretSet(), new SpillStore({ dir: spillDir, clock: systemClock })),
    status: () => ({}),
    stop: () => undefined,
    reload: async () => ({}),
    urls: () => ({ execBaseUrl: '', mcpUrl: '' }),
    extraRoutes: (a) => {
      a.post(`${EXEC_BASE}/slow/op`, async (c) => {
        await gate; // never looks at c.get('runtime').signal
        return c.json({ ok: true, data: { done: true } });
      });
      return undefined;
    },
  });
  const auth = await store.create({ serverId: 's', agentId: 'a' });
  const events: string[] = [];
  const response = Promise.resolve(
    app.request('/api/internal/exec/servers/s/agents/a/slow/op', {
      method: 'POST',
      headers: {
        host: '127.0.0.1:80',
        authorization: `Bearer ${readFileSync(auth.tokenFile, 'utf8')}`,
      },
    }),
  ).then(async (r) => {
    events.push('answered');
    return { status: r.status, body: await r.text() };
  });
  assert.ok(await waitFor(() => auth.inFlight === 1, 2000));
  const revoked = store.revoke(auth.id, 'test').then(() => events.push('revoked'));
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(events, [], 'the revocation waits for the handler');
  open();
  const [res] = await Promise.all([response, revoked]);
  assert.deepEqual([res.status, res.body], [403, FORBIDDEN_BODY]);
  assert.deepEqual(events, ['answered', 'revoked']);
});
