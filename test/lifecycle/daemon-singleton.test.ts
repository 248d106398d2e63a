import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { alive, waitFor } from '../../devkit/wait.js';
import { cliEnv, startDaemonCli, tempHome } from '../../devkit/daemon.js';
import type { RunResult } from '../../devkit/cli.js';
import { scale } from '../../devkit/scale.js';

async function race(env: NodeJS.ProcessEnv, track: (pid: number) => void): Promise<number> {
  const results: RunResult[] = await Promise.all([
    cliEnv(['daemon', 'start'], env),
    cliEnv(['daemon', 'start'], env),
  ]);
  const winners = results.filter((r) => r.code === 0);
  const losers = results.filter((r) => r.code !== 0);
  assert.equal(winners.length, 1, `exactly one start succeeds: ${JSON.stringify(results)}`);
  assert.equal(losers.length, 1);
  const ready = JSON.parse(winners[0]!.stdout) as { url: string; pid: number };
  track(ready.pid);
  assert.equal(JSON.parse(losers[0]!.stdout).error.code, 'already_exists');
  assert.match(losers[0]!.stderr, new RegExp(`pid ${ready.pid}\\b`), losers[0]!.stderr);
  const st = await cliEnv(['daemon', 'status'], env);
  assert.equal(st.code, 0, st.stderr);
  assert.equal((JSON.parse(st.stdout) as { data: { pid: number } }).data.pid, ready.pid);
  return ready.pid;
}

async function stopPid(pid: number): Promise<void> {
  process.kill(pid, 'SIGTERM');
  assert.ok(await waitFor(() => !alive(pid), 5000), 'winner stops');
}

/** Rounds: 5 in `npm test`, 20 at soak scale (devkit/scale.ts). */
const RACES = scale(5, 20);
/** Kill-and-race rounds over a left-over lock: 4 in `npm test` (each kind twice), 6 at soak scale. */
const STALE_ROUNDS = scale(4, 6);

test(`two concurrent daemon starts on one home: exactly one serves (${RACES} rounds)`, async (t) => {
  const { env, track } = tempHome(t);
  for (let i = 0; i < RACES; i++) await stopPid(await race(env, track));
});

test('two concurrent starts over a stale lock left by a killed daemon: exactly one serves', async (t) => {
  const { home, env, track } = tempHome(t);
  for (let i = 0; i < STALE_ROUNDS; i++) {
    const dead = await startDaemonCli(env, track);
    process.kill(dead.pid, 'SIGKILL');
    assert.ok(await waitFor(() => !alive(dead.pid), 2000));
    // Odd rounds: age the lock past proper-lockfile's stale threshold, so its own
    // (racy) stale reclaim runs and the owner-record check has to settle a double win.
    if (i % 2 === 1)
      utimesSync(
        join(home, 'daemon.lock'),
        new Date(Date.now() - 60_000),
        new Date(Date.now() - 60_000),
      );
    const pid = await race(env, track);
    if (i === STALE_ROUNDS - 1) {
      // Past one lock-update interval the winner must still hold its lock (not compromised).
      await new Promise((r) => setTimeout(r, 2500));
      const st = await cliEnv(['daemon', 'status'], env);
      assert.equal(st.code, 0, st.stderr);
      assert.equal((JSON.parse(st.stdout) as { data: { pid: number } }).data.pid, pid);
    }
    await stopPid(pid);
  }
});
