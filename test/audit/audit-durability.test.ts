import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { call } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import { AUDIT_BATCH_ROWS, AUDIT_FLUSH_MS } from '../../daemon/audit/recorder.js';

/**
 * What the audit trail keeps across a stop: a clean stop writes every row
 * still queued; kill -9 loses at most what was not yet committed, which is
 * one batch: the calls of the last flush interval (AUDIT_FLUSH_MS), at most
 * AUDIT_BATCH_ROWS rows.
 */
/** Room for the write itself on a busy machine: a call answered this long before the kill plus the interval must be on disk. */
const WRITE_SLACK_MS = 1_000;
async function rows(d: Daemon): Promise<number> {
  const r = await cli(d.home, ['audit', '--json', '--limit', '100']);
  assert.equal(r.code, 0, r.stderr);
  const page = JSON.parse(r.stdout).data;
  let n = page.entries.length;
  let cursor = page.nextCursor;
  while (cursor) {
    const next = JSON.parse(
      (await cli(d.home, ['audit', '--json', '--limit', '100', '--cursor', cursor])).stdout,
    ).data;
    n += next.entries.length;
    cursor = next.nextCursor;
  }
  return n;
}

async function burst(d: Daemon, n: number): Promise<void> {
  const rt = await startRuntime(d);
  try {
    for (let i = 0; i < n; i++) assert.equal((await call(rt, 'task', 'list', {})).status, 200);
  } finally {
    await rt.close();
  }
}

test('a clean stop writes every queued audit row', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  for (let i = 0; i < 40; i++) assert.equal((await call(rt, 'task', 'list', {})).status, 200);
  // Straight away, well inside the 200 ms batch interval: the stop must write them.
  await d.stop();
  await rt.close();
  await d.start();
  assert.equal(await rows(d), 40);
});

test('kill -9 loses at most one batch of audit rows', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  await burst(d, 30);
  // These were written (the batch interval passed).
  const until = Date.now() + 10_000;
  while ((await rows(d)) < 30 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await rows(d), 30);
  const rt = await startRuntime(d);
  const answered: number[] = [];
  for (let i = 0; i < 50; i++) {
    assert.equal((await call(rt, 'task', 'list', {})).status, 200);
    answered.push(Date.now());
  }
  await new Promise((r) => setTimeout(r, 50));
  const killedAt = Date.now();
  d.kill9();
  await rt.close();
  await d.start();
  const kept = await rows(d);
  const due = answered.filter((t) => t < killedAt - AUDIT_FLUSH_MS - WRITE_SLACK_MS).length;
  assert.ok(kept >= 30 + due, `rows due before the crash survive: kept ${kept}, due ${30 + due}`);
  assert.ok(80 - kept <= AUDIT_BATCH_ROWS, `lost ${80 - kept} rows, more than one batch`);
});
