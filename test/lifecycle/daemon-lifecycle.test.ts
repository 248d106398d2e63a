import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { alive, waitFor } from '../../devkit/wait.js';
import { cliEnv, cliSpawn, startDaemonCli, tempHome } from '../../devkit/daemon.js';
import { httpGet } from '../../devkit/http.js';

test('daemon start / status / second start / stop through the CLI', async (t) => {
  const { home, env, track } = tempHome(t);
  const ready = await startDaemonCli(env, track);
  assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual(JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')).pid, ready.pid);
  assert.equal(statSync(join(home, 'operator.token')).mode & 0o777, 0o600);
  assert.equal(statSync(home).mode & 0o777, 0o700);
  // Whatever the caller's umask, every file the daemon makes is owner-only.
  for (const f of ['daemon.json', 'store.db'])
    assert.equal(statSync(join(home, f)).mode & 0o077, 0, f);

  const second = await cliEnv(['daemon', 'start'], env);
  assert.notEqual(second.code, 0);
  assert.equal(JSON.parse(second.stdout).error.code, 'already_exists');
  assert.equal(second.stderr.trim().split('\n').length, 1);
  assert.match(second.stderr, new RegExp(`pid ${ready.pid}\\b`));

  const st = await cliEnv(['daemon', 'status'], env);
  assert.equal(st.code, 0, st.stderr);
  const status = (JSON.parse(st.stdout) as { ok: true; data: Record<string, unknown> }).data;
  assert.equal(status.pid, ready.pid);
  assert.equal(status.url, ready.url);
  for (const k of ['uptimeMs', 'active', 'cleanupDebt', 'inFlight'])
    assert.equal(typeof status[k], 'number', k);

  // Operator routes need the operator token.
  assert.equal((await httpGet(`${ready.url}/api/v1/status`)).status, 403);

  const reload = await cliEnv(['daemon', 'reload'], env);
  assert.equal(reload.code, 0, reload.stderr);
  process.kill(ready.pid, 'SIGHUP'); // same reload; the daemon must survive it
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(alive(ready.pid), true);

  const stop = await cliEnv(['daemon', 'stop'], env);
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(alive(ready.pid), false);
  assert.equal(existsSync(join(home, 'daemon.json')), false);
  assert.equal(existsSync(join(home, 'daemon.lock')), false);
  assert.equal((await cliEnv(['daemon', 'status'], env)).code, 3);
  assert.equal((await cliEnv(['daemon', 'stop'], env)).code, 3);
});

test('a non-loopback listen address is refused without --allow-remote', async (t) => {
  const { env } = tempHome(t);
  const r = await cliEnv(['daemon', 'start', '--listen', '0.0.0.0:0'], env);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /--allow-remote/);
});

test('SIGTERM stops in order: runtime revoked, credential dir removed, lock released', async (t) => {
  const { home, env, track } = tempHome(t);
  const ready = await startDaemonCli(env, track);
  const run = cliSpawn(
    [
      'run',
      '--server',
      's1',
      '--agent',
      'a1',
      '--',
      process.execPath,
      '-e',
      'setTimeout(() => {}, 60000)',
    ],
    env,
    track,
  );
  const runtimeDir = join(home, 'runtime');
  assert.ok(await waitFor(() => readdirSync(runtimeDir).length === 1, 5000), 'token dir appears');
  process.kill(ready.pid, 'SIGTERM');
  assert.ok(await waitFor(() => !alive(ready.pid), 5000), 'daemon exits');
  assert.deepEqual(readdirSync(runtimeDir), []);
  assert.equal(existsSync(join(home, 'daemon.json')), false);
  assert.equal(existsSync(join(home, 'daemon.lock')), false);
  run.kill('SIGKILL');
});

test('kill -9 of the daemon, then start: stale credential dirs are gone by the ready line', async (t) => {
  const { home, env, track } = tempHome(t);
  const first = await startDaemonCli(env, track);
  const run = cliSpawn(
    [
      'run',
      '--server',
      's1',
      '--agent',
      'a1',
      '--',
      process.execPath,
      '-e',
      'setTimeout(() => {}, 60000)',
    ],
    env,
    track,
  );
  const runtimeDir = join(home, 'runtime');
  assert.ok(await waitFor(() => readdirSync(runtimeDir).length === 1, 5000));
  process.kill(first.pid, 'SIGKILL');
  assert.ok(await waitFor(() => !alive(first.pid), 2000));
  try {
    process.kill(-run.pid!, 'SIGKILL');
  } catch {
    // `run` may already have given up if the daemon died before its lease line arrived
  }
  // One more stale directory, as a crashed daemon could leave mid-publication.
  mkdirSync(join(runtimeDir, 'deadbeef'), { mode: 0o700 });
  writeFileSync(join(runtimeDir, 'deadbeef', 'token'), 'x', { mode: 0o600 });
  assert.equal(readdirSync(runtimeDir).length, 2);

  const r = await cliEnv(['daemon', 'start'], env);
  assert.equal(r.code, 0, r.stderr);
  const second = JSON.parse(r.stdout) as { pid: number };
  track(second.pid);
  assert.deepEqual(readdirSync(runtimeDir), [], 'swept before the ready line');
  assert.notEqual(second.pid, first.pid);
});

test('a compromised lock: re-adopted while the owner record is ours, orderly stop once it is not', async (t) => {
  const { home, env, track } = tempHome(t);
  const ready = await startDaemonCli(env, track);
  const lockDir = join(home, 'daemon.lock');
  // Lock directory gone, owner record still ours: the daemon takes its lock back and keeps serving.
  rmSync(lockDir, { recursive: true, force: true });
  assert.ok(await waitFor(() => existsSync(lockDir), 6000), 'lock re-created');
  assert.equal(alive(ready.pid), true);
  assert.equal((await cliEnv(['daemon', 'status'], env)).code, 0);
  // Another process now owns the home (its record, its lock): this daemon stops in order.
  writeFileSync(
    join(home, 'daemon.owner'),
    JSON.stringify({ pid: process.pid, nonce: 'someone-else', startedAt: Date.now(), argv1: '' }),
  );
  rmSync(lockDir, { recursive: true, force: true });
  mkdirSync(lockDir);
  assert.ok(await waitFor(() => !alive(ready.pid), 8000), 'daemon stops');
  assert.equal(existsSync(join(home, 'daemon.json')), false);
  const log = readFileSync(join(home, 'daemon.log'), 'utf8');
  assert.match(log, /lock_compromised|ownership_lost/);
  assert.match(log, /"event":"stopped"/);
});
