import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon } from '../../devkit/daemon.js';
import { operatorToken, requestLease, type LeaseResult } from '../../devkit/lease.js';
import { send } from '../../devkit/http.js';

/**
 * Many runtimes ending together must not stall the daemon: while their
 * leases are revoked and their directories removed, the operator is still
 * answered at once on a fresh connection. Ending each lease used to rebuild
 * the result gate's token matcher (a regular expression over every live
 * token), one after the other on the event loop: 192 ends held a status
 * request for seconds.
 */
const LEASES = 192;
/** Far above a quiet daemon's answer (a few ms), far below what the stall cost. */
const BOUND_MS = 500;
/** Leases are opened this many at a time, to keep the set-up short. */
const BATCH = 16;

test(`${LEASES} leases ending at once: every status request meanwhile is answered within ${BOUND_MS} ms`, async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const op = operatorToken(d);
  const leases: LeaseResult[] = [];
  t.after(() => {
    for (const l of leases) l.close();
  });
  for (let i = 0; i < LEASES; i += BATCH) {
    const batch = await Promise.all(
      Array.from({ length: BATCH }, (_, j) =>
        requestLease(d.url, op, { serverId: 's1', agentId: `a${i + j}` }),
      ),
    );
    leases.push(...batch);
    for (const l of batch) assert.equal(l.status, 200, JSON.stringify(l.body));
  }
  const status = async () => {
    const started = performance.now();
    const r = await send(new URL('/api/v1/status', d.url).toString(), 'GET', {
      authorization: `Bearer ${op}`,
    });
    assert.equal(r.status, 200);
    return {
      ms: performance.now() - started,
      leases: (JSON.parse(r.body) as { data: { leases: number } }).data.leases,
    };
  };
  assert.equal((await status()).leases, LEASES);

  for (const l of leases) l.close();
  const times: number[] = [];
  for (;;) {
    const s = await status();
    times.push(Math.round(s.ms));
    if (s.leases === 0) break;
  }
  assert.ok(
    Math.max(...times) <= BOUND_MS,
    `status answered in ${times.join(', ')} ms while the leases ended`,
  );
});
