import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { ROOT } from '../../devkit/cli.js';
import { call, closeHttp } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime } from '../../devkit/daemon.js';
import { startTrickle } from '../../devkit/extension-upstream.js';
import {
  forwardToUpstream,
  shortenUpstreamDeadline,
  UPSTREAM_TIMEOUT_MS,
} from '../../daemon/extensions/forward.js';
import { KnowledgeUpstream } from '../../daemon/knowledge/kb-upstream.js';
import type { ExecError } from '../../daemon/errors/exec-error.js';
import { gateWith } from '../../devkit/gate.js';
import type { Principal } from '../../daemon/auth/principal.js';

test.after(() => closeHttp());

/**
 * The deadline these tests wait out: 3 s instead of the 10 s default (a test
 * timing, AGENTTEAM_TEST_EXTENSION_TIMEOUT_MS for the daemon), still well past
 * the 400 ms revocation, the knowledge service's 800 ms and the upstream's 300 ms trickle.
 */
const DEADLINE_MS = 3_000;

/**
 * A trickling upstream (a byte every 300 ms, never a whole answer) must not
 * hold a call past its deadline, nor past the runtime's revocation, however
 * much the daemon allocates meanwhile. The deadline used to be an
 * AbortSignal.timeout composed with AbortSignal.any; under garbage collection
 * the composite signal was collected and neither the timeout nor the
 * revocation ever reached the request.
 */

/** Full collections in a loop while garbage is made, as other calls do. */
function allocationPressure(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  let junk: unknown[] = [];
  const timer = setInterval(() => {
    for (let i = 0; i < 2000; i++) junk.push(new Array(64).fill(i));
    if (junk.length > 40_000) junk = [];
    gc();
  }, 5);
  return () => clearInterval(timer);
}

const EXT = { name: 'github', upstream: '', digest: 'sha256:x', catalogVersion: 'v1' };
const PRINCIPAL = {
  authorizationId: 'a',
  serverId: 's',
  agentId: 'k',
  sessionId: null,
  runId: null,
  workdir: null,
  primaryThreadId: null,
  turn: null,
} as Principal;
const TURN = {
  target: 'channel:g',
  targetType: 'channel',
  targetKey: 'channel:g',
  messageId: 'm1',
} as const;

async function settles(p: Promise<unknown>): Promise<{ ms: number; err: ExecError }> {
  const started = Date.now();
  try {
    await p;
  } catch (err) {
    return { ms: Date.now() - started, err: err as ExecError };
  }
  throw new Error('the call succeeded against an upstream that never answers');
}

test('outbound calls under collection pressure: the deadline and the revocation both end the call and close its socket', {
  timeout: 30_000,
}, async (t) => {
  const up = await startTrickle();
  t.after(() => up.close());
  shortenUpstreamDeadline(DEADLINE_MS);
  t.after(() => shortenUpstreamDeadline(UPSTREAM_TIMEOUT_MS));
  const stop = allocationPressure();
  t.after(stop);
  const ext = { ...EXT, upstream: up.url };
  const revokeExt = new AbortController();
  const revokeKb = new AbortController();
  const kb = new KnowledgeUpstream({ url: up.url, timeoutMs: 800 }, gateWith());
  const results = Promise.all([
    settles(forwardToUpstream(ext, 'list', {}, new AbortController().signal, () => ({ ok: true }))),
    settles(forwardToUpstream(ext, 'list', {}, revokeExt.signal, () => ({ ok: true }))),
    settles(kb.search(PRINCIPAL, TURN, { query: 'q', limit: 5 }, new AbortController().signal)),
    settles(kb.fetch(PRINCIPAL, TURN, { docId: 'd' }, revokeKb.signal)),
  ]);
  setTimeout(() => {
    revokeExt.abort(new Error('revoked'));
    revokeKb.abort(new Error('revoked'));
  }, 400);
  const [extTimeout, extRevoked, kbTimeout, kbRevoked] = await results;
  assert.equal(extTimeout.err.code, 'upstream_unreachable');
  assert.match(extTimeout.err.message, /did not answer within 3 s/);
  assert.ok(
    extTimeout.ms >= DEADLINE_MS - 50 && extTimeout.ms < DEADLINE_MS + 2_000,
    `extension deadline after ${extTimeout.ms} ms`,
  );
  assert.equal(extRevoked.err.code, 'unavailable');
  assert.ok(extRevoked.ms < 2_000, `extension revocation after ${extRevoked.ms} ms`);
  assert.equal(kbTimeout.err.code, 'upstream_error');
  assert.match(kbTimeout.err.message, /no answer within 800 ms/);
  assert.ok(kbTimeout.ms < 3_000, `kb deadline after ${kbTimeout.ms} ms`);
  assert.equal(kbRevoked.err.code, 'unavailable');
  assert.ok(kbRevoked.ms < 2_000, `kb revocation after ${kbRevoked.ms} ms`);
  assert.ok(await up.waitClosed(4, 2_000), 'every socket to the upstream was closed');
  assert.equal(up.open(), 0);
});

const EXAMPLE = readFileSync(join(ROOT, 'examples/extensions/github.json'), 'utf8');

test('a trickling extension upstream, through the daemon: answered at its deadline while other calls allocate, its slot comes back, and revocation ends it', {
  timeout: 60_000,
}, async (t) => {
  const up = await startTrickle();
  t.after(() => up.close());
  const d = await startDaemon({
    env: { AGENTTEAM_TEST_EXTENSION_TIMEOUT_MS: String(DEADLINE_MS) },
  });
  t.after(() => d.close());
  const file = join(d.home, 'github.json');
  writeFileSync(file, EXAMPLE.replace('http://127.0.0.1:8787', up.url));
  assert.equal((await cli(d.home, ['extension', 'install', file])).code, 0);
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const busy = await startRuntime(d, { server: 's1', agent: 'busy' });
  t.after(() => busy.close());
  const op = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const inFlight = async () =>
    (
      (await (
        await fetch(`${d.url}/api/v1/status`, { headers: { authorization: `Bearer ${op}` } })
      ).json()) as { data: { inFlight: number } }
    ).data.inFlight;

  // Other callers make the daemon allocate: 256 KiB inputs, parsed and refused, four at a time.
  let pressing = true;
  const big = { repo: 'x'.repeat(256 * 1024), number: 1, target: 'channel:x' };
  const press = Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (pressing) await call(busy, 'github', 'watch', big).catch(() => undefined);
    }),
  );
  t.after(async () => {
    pressing = false;
    await press;
  });

  const started = Date.now();
  const slow = call(rt, 'github', 'list', {});
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal(up.open(), 1, 'the call reached the upstream');
  const r = await slow;
  const ms = Date.now() - started;
  assert.equal(r.json.error.code, 'upstream_unreachable', r.text);
  assert.match(r.json.error.message, /did not answer within 3 s/);
  assert.ok(ms >= DEADLINE_MS - 50 && ms < DEADLINE_MS + 3_000, `answered after ${ms} ms`);
  assert.ok(await up.waitClosed(1, 2_000), 'the upstream socket was closed');
  pressing = false;
  await press;
  assert.equal(await inFlight(), 0, 'the slot came back');

  // Revocation: the runtime ends while its call trickles; the call ends with it.
  const second = call(rt, 'github', 'list', {}).catch((e: unknown) => e);
  const accepted = up.accepted();
  while (up.accepted() === accepted) await new Promise((res) => setTimeout(res, 20));
  const revokedAt = Date.now();
  await rt.close();
  assert.ok(
    await up.waitClosed(2, 3_000),
    `the upstream socket stayed open ${Date.now() - revokedAt} ms after revocation`,
  );
  await second;
  assert.equal(await inFlight(), 0);
});
