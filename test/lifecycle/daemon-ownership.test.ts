import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alive, waitFor } from '../../devkit/wait.js';
import { tempHome, firstLine } from '../../devkit/daemon.js';

const MAIN = fileURLToPath(new URL('../../daemon/main.js', import.meta.url));

test('only an owner record naming another live daemon stops the daemon; read errors are logged and retried, a missing record restored', async (t) => {
  const { home, env, track } = tempHome(t);
  const daemon = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  track(daemon.pid!);
  let log = '';
  daemon.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  const ready = JSON.parse(await firstLine(daemon)) as { pid: number };
  const ownerPath = join(home, 'daemon.owner');
  const mine = JSON.parse(readFileSync(ownerPath, 'utf8')) as { pid: number; nonce: string };
  assert.equal(mine.pid, ready.pid);

  // Unreadable (a directory where the file was): inconclusive, logged, the daemon keeps serving.
  rmSync(ownerPath);
  mkdirSync(ownerPath);
  assert.ok(
    await waitFor(() => (log.match(/owner_check_inconclusive/g) ?? []).length >= 2, 8000),
    `logged twice: ${log}`,
  );
  assert.equal(alive(ready.pid), true);
  assert.doesNotMatch(log, /ownership_lost|"stopping"/);

  // Missing: rewritten with this daemon's record while it holds the lock.
  rmSync(ownerPath, { recursive: true });
  assert.ok(
    await waitFor(() => {
      try {
        return (
          (JSON.parse(readFileSync(ownerPath, 'utf8')) as { nonce: string }).nonce === mine.nonce
        );
      } catch {
        return false;
      }
    }, 6000),
    'owner record restored',
  );
  assert.equal(alive(ready.pid), true);

  // A record naming a dead process proves nothing either: restored too.
  writeFileSync(
    ownerPath,
    JSON.stringify({ pid: 2 ** 22 + 7, nonce: 'x'.repeat(32), startedAt: 0, argv1: '' }),
  );
  assert.ok(
    await waitFor(() => readFileSync(ownerPath, 'utf8').includes(mine.nonce), 6000),
    'dead owner replaced by ours',
  );
  assert.equal(alive(ready.pid), true);

  // Proven loss: another live process (this test) is named. The daemon stops in order.
  writeFileSync(
    ownerPath,
    JSON.stringify({ pid: process.pid, nonce: 'y'.repeat(32), startedAt: Date.now(), argv1: '' }),
  );
  assert.ok(await waitFor(() => !alive(ready.pid), 10_000), 'daemon stopped');
  assert.match(log, /ownership_lost/);
  assert.equal(
    readFileSync(ownerPath, 'utf8').includes('y'.repeat(32)),
    true,
    'the other owner record is left alone',
  );
});
