import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthorizationStore } from '../../daemon/auth/store.js';
import { createJoseSigner, type TokenSigner } from '../../daemon/auth/signer.js';
import { fsTokenWriter, type TokenWriter } from '../../daemon/auth/token-file.js';
import { removeDir, type DirRemover } from '../../daemon/auth/private-dir.js';
import { pinCatalog } from '../../daemon/auth/pinned-catalog.js';
import { MAX_LEASES } from '../../daemon/auth/limits.js';
import { ExecError } from '../../daemon/errors/exec-error.js';
import { defaultCatalog } from '../../catalog/index.js';
import { FakeClock } from '../../devkit/auth-clock.js';

/** A store on a fake clock whose signer, writer and remover can be switched to fail. */
function setup(t: import('node:test').TestContext) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-h2-faults-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const clock = new FakeClock(Date.now());
  const real = createJoseSigner(clock, 12 * 3600);
  const fail = { sign: false, publish: false, remove: 0 };
  const signer: TokenSigner = {
    sign: (r) => (fail.sign ? Promise.reject(new Error('injected sign failure')) : real.sign(r)),
    verify: (tok) => real.verify(tok),
  };
  const writer: TokenWriter = {
    publish: (dir, tok) =>
      fail.publish
        ? Promise.reject(new Error('injected publish failure'))
        : fsTokenWriter.publish(dir, tok),
  };
  const events: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of waiters) w();
  };
  // A finished removal is reported once the store has acted on it (its continuation runs before the immediate).
  const remover: DirRemover = (dir) =>
    fail.remove-- > 0
      ? Promise.reject(new Error('injected remove failure'))
      : removeDir(dir).finally(() => setImmediate(notify));
  const store = new AuthorizationStore({
    clock,
    signer,
    writer,
    remover,
    runtimeDir: join(home, 'runtime'),
    catalog: () => pinCatalog(defaultCatalog()),
    diag: (e) => {
      events.push(e);
      notify();
    },
    onPublished: notify,
  });
  /**
   * Resolves once `cond` holds, checked whenever the store reports something
   * (a diagnostic, a published token): sign, publish and fs work run on real
   * I/O, so the test waits for their outcome rather than guessing how long it takes.
   */
  const until = (cond: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!cond()) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  return { home, clock, fail, store, events, until };
}

const count = (events: string[], name: string) => events.filter((e) => e === name).length;

for (const kind of ['sign', 'publish'] as const) {
  test(`a failed ${kind} keeps the current file and generation, and renewal retries`, async (t) => {
    const { clock, fail, store, events, until } = setup(t);
    const auth = await store.create({ serverId: 's', agentId: 'a', ttlMs: 10_000 });
    const token0 = readFileSync(auth.tokenFile, 'utf8');
    const gen0 = auth.generations[0]!;

    fail[kind] = true;
    await assert.rejects(store.rotateNow(auth.id));
    assert.equal(readFileSync(auth.tokenFile, 'utf8'), token0);
    assert.deepEqual(auth.generations, [gen0]);
    assert.deepEqual(readdirSync(auth.dir), ['token'], 'no temp file left behind');
    assert.equal((await store.authenticate(token0)).ok, true);

    // Scheduled renewal fails too: still the same file and generation, a retry is scheduled.
    clock.advance(8_000);
    await until(() => events.includes('renew_failed'));
    assert.equal(readFileSync(auth.tokenFile, 'utf8'), token0);
    assert.deepEqual(
      auth.generations.map((g) => g.id),
      [gen0.id],
    );
    assert.equal((await store.authenticate(token0)).ok, true);
    assert.ok(
      clock.nextAt()! <= gen0.expiresAtMs,
      'the retry comes before the current token expires',
    );

    fail[kind] = false;
    clock.advance(clock.nextAt()! - clock.now());
    await until(() => auth.generations.length === 2);
    const token1 = readFileSync(auth.tokenFile, 'utf8');
    assert.notEqual(token1, token0);
    assert.equal(auth.generations.length, 2);
    assert.equal((await store.authenticate(token1)).ok, true);
    assert.equal(
      (await store.authenticate(token0)).ok,
      true,
      'the predecessor stays valid until its own expiry',
    );
  });
}

test('failed cleanup is cleanup debt: access is gone at once, removal retried with backoff, lease counted', async (t) => {
  const { clock, fail, store, events, until } = setup(t);
  const auth = await store.create({ serverId: 's', agentId: 'a' });
  const token = readFileSync(auth.tokenFile, 'utf8');
  const aborted: unknown[] = [];
  auth.signal.addEventListener('abort', () => aborted.push(auth.signal.reason));
  fail.remove = 3;
  await store.revoke(auth.id, 'exit');
  assert.equal(aborted.length, 1, 'in-flight work is cancelled');
  assert.ok(aborted[0] instanceof ExecError);
  assert.equal((await store.authenticate(token)).ok, false, 'revocation is immediate');
  assert.deepEqual(store.stats(), {
    active: 0,
    launching: 0,
    cleanupDebt: 1,
    leases: 1,
    inFlight: 0,
  });
  assert.ok(existsSync(auth.dir));
  // Backoff 200, 400, 800 ms: two more failures, then success.
  const delays: number[] = [];
  while (existsSync(auth.dir)) {
    const next = clock.nextAt()! - clock.now();
    const failures = count(events, 'cleanup_failed');
    delays.push(next);
    clock.advance(next);
    // Each attempt ends in one more failure (and its next timer) or in the record leaving the store.
    await until(() => count(events, 'cleanup_failed') > failures || store.stats().leases === 0);
  }
  assert.deepEqual(delays, [200, 400, 800]);
  assert.equal(events.filter((e) => e === 'cleanup_failed').length, 3);
  assert.deepEqual(store.stats(), {
    active: 0,
    launching: 0,
    cleanupDebt: 0,
    leases: 0,
    inFlight: 0,
  });
  assert.equal((await store.authenticate(token)).ok, false, 'cleanup never restores access');
});

test('a failed launch leaves nothing behind', async (t) => {
  const { fail, store } = setup(t);
  fail.publish = true;
  await assert.rejects(store.create({ serverId: 's', agentId: 'a' }));
  assert.deepEqual(store.stats().leases, 0);
});

test(`at most ${MAX_LEASES} leases; the next launch fails with busy`, async (t) => {
  const { store } = setup(t);
  const all = [];
  for (let i = 0; i < MAX_LEASES; i++) all.push(store.create({ serverId: 's', agentId: `a${i}` }));
  await Promise.all(all);
  await assert.rejects(store.create({ serverId: 's', agentId: 'x' }), (err: unknown) => {
    assert.ok(err instanceof ExecError);
    assert.equal(err.code, 'busy');
    assert.match(err.message, /512/);
    return true;
  });
  await store.shutdown();
  assert.equal(store.stats().leases, 0);
});
