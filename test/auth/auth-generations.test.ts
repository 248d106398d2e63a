import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { startDaemon } from '../../daemon/server.js';
import { AuthorizationStore } from '../../daemon/auth/store.js';
import { createJoseSigner, CLOCK_TOLERANCE_S } from '../../daemon/auth/signer.js';
import { fsTokenWriter } from '../../daemon/auth/token-file.js';
import { pinCatalog } from '../../daemon/auth/pinned-catalog.js';
import {
  liveGenerationBound,
  MAX_LIVE_FORCED_GENERATIONS,
  scheduledLiveBound,
} from '../../daemon/auth/limits.js';
import { ExecError } from '../../daemon/errors/exec-error.js';
import { defaultCatalog } from '../../catalog/index.js';
import { FakeClock } from '../../devkit/auth-clock.js';
import { requestLease, operatorToken } from '../../devkit/lease.js';
import { send } from '../../devkit/http.js';
import { expiryMs } from '../../devkit/token.js';

const TOL_MS = CLOCK_TOLERANCE_S * 1000;

/** Lets sign/publish chains started by a timer finish (they run on real I/O). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 2));
}

test('the bound on live generations comes from the TTL and the rotation point', () => {
  assert.equal(scheduledLiveBound(12 * 3600_000, TOL_MS), 2);
  assert.equal(scheduledLiveBound(2_000, TOL_MS), 5); // (2 s + 5 s) / 1.5 s, + 1
  assert.equal(liveGenerationBound(12 * 3600_000, TOL_MS), 2 + MAX_LIVE_FORCED_GENERATIONS);
});

test('every generation works until its own expiry (+ tolerance) across forced and scheduled rotations (HTTP, injected clock)', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-gens-'));
  const clock = new FakeClock(Date.now());
  const daemon = await startDaemon({ home, clock, log: () => undefined });
  const op = operatorToken(home);
  const lease = await requestLease(daemon.url, op, { serverId: 's', agentId: 'a', ttlSeconds: 10 });
  t.after(async () => {
    lease.close();
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const { authorizationId, execBaseUrl } = lease.body.data!;
  const tokens = new Set<string>([lease.token()]);
  const status = async (tok: string) =>
    (await send(`${execBaseUrl}/catalog`, 'GET', { authorization: `Bearer ${tok}` })).status;
  const rotate = () =>
    send(`${daemon.url}/api/v1/runtimes/${authorizationId}/rotate`, 'POST', {
      authorization: `Bearer ${op}`,
    });
  const checkAll = async () => {
    tokens.add(lease.token()); // scheduled rotations publish here
    for (const tok of tokens) {
      const want = clock.now() < expiryMs(tok) + TOL_MS ? 200 : 403;
      assert.equal(
        await status(tok),
        want,
        `token expiring ${expiryMs(tok) - clock.now()} ms from now`,
      );
    }
  };

  for (let i = 0; i < MAX_LIVE_FORCED_GENERATIONS; i++) {
    clock.advance(1_000);
    const r = await rotate();
    assert.equal(r.status, 200, r.body);
    tokens.add(lease.token());
    await checkAll();
  }
  assert.equal(
    tokens.size,
    1 + MAX_LIVE_FORCED_GENERATIONS,
    'each forced rotation published a new token',
  );
  // One forced rotation too many is refused; nothing is revoked to make room.
  const refused = await rotate();
  assert.equal(refused.status, 409, refused.body);
  assert.match(refused.body, /"code":"busy".*next forced rotation is possible in \d+ s/);
  await checkAll();
  // Walk time past every expiry; scheduled rotations keep coming, tokens lapse one by one, never early.
  for (let step = 0; step < 60; step++) {
    clock.advance(500);
    await settle();
    await checkAll();
  }
  assert.ok(
    tokens.size >= 1 + MAX_LIVE_FORCED_GENERATIONS + 2,
    `scheduled rotations happened (${tokens.size} tokens)`,
  );
  assert.equal(
    (await rotate()).status,
    200,
    'forced rotation possible again once the forced ones expired',
  );
});

test('property: no generation is ever refused before its own expiry nor accepted after it, and the bound holds', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-gens-prop-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const op = fc.oneof(
    fc.record({ kind: fc.constant('force' as const) }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 4_000 }) }),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 2, max: 30 }),
      fc.array(op, { maxLength: 25 }),
      async (ttlS, ops) => {
        const clock = new FakeClock(Date.UTC(2026, 0, 1));
        const store = new AuthorizationStore({
          clock,
          signer: createJoseSigner(clock, 12 * 3600),
          writer: fsTokenWriter,
          runtimeDir: join(home, 'runtime'),
          catalog: () => pinCatalog(defaultCatalog()),
          random: () => 1,
        });
        try {
          const auth = await store.create({ serverId: 's', agentId: 'a', ttlMs: ttlS * 1000 });
          const issued = new Map<string, number>([
            [readFileSync(auth.tokenFile, 'utf8'), auth.generations[0]!.expiresAtMs],
          ]);
          for (const o of ops) {
            if (o.kind === 'force') {
              try {
                await store.rotateNow(auth.id);
              } catch (err) {
                assert.ok(err instanceof ExecError && err.code === 'busy', String(err));
              }
            } else {
              clock.advance(o.ms);
              await settle();
            }
            for (const g of auth.generations) issued.set(g.token, g.expiresAtMs);
            assert.ok(auth.generations.length <= liveGenerationBound(auth.ttlMs, TOL_MS));
            for (const [tok, exp] of issued) {
              const res = await store.authenticate(tok);
              assert.equal(res.ok, clock.now() < exp + TOL_MS, `now-exp=${clock.now() - exp}`);
            }
          }
        } finally {
          await store.shutdown();
        }
      },
    ),
    { numRuns: 25 },
  );
});
