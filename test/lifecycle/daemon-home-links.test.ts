import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  renameSync,
  existsSync,
  lstatSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { alive, waitFor } from '../../devkit/wait.js';
import { cliEnv, startDaemonCli, tempHome } from '../../devkit/daemon.js';

/** A directory outside the home standing for whatever a planted link points at. */
function outside(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-outside-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function snapshot(dir: string): string {
  return JSON.stringify(
    readdirSync(dir)
      .sort()
      .map((n) => {
        const st = statSync(join(dir, n));
        return [
          n,
          st.mode,
          st.size,
          st.isFile() ? readFileSync(join(dir, n), 'utf8') : readdirSync(join(dir, n)).sort(),
        ];
      }),
  );
}

async function refused(
  t: TestContext,
  plant: (home: string, out: string) => void,
  linkName: string,
): Promise<void> {
  const { home, env } = tempHome(t);
  const out = outside(t);
  writeFileSync(join(out, 'precious'), 'keep me\n'.repeat(8), { mode: 0o644 });
  mkdirSync(join(out, 'sub'));
  writeFileSync(join(out, 'sub', 'file'), 'x', { mode: 0o644 });
  plant(home, out);
  const before = snapshot(out);
  const r = await cliEnv(['daemon', 'start'], env);
  assert.notEqual(r.code, 0, 'start refused');
  assert.match(
    r.stderr,
    new RegExp(`${join(home, linkName).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a symbolic link`),
  );
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.equal(snapshot(out), before, 'nothing outside the home touched');
  if (linkName !== 'daemon.json') assert.equal(existsSync(join(home, 'daemon.json')), false);
  assert.ok(
    lstatSync(join(home, linkName)).isSymbolicLink(),
    'the link itself is left for the operator',
  );
}

test('runtime/ as a link: refused at start, its target not emptied', async (t) => {
  await refused(t, (home, out) => symlinkSync(out, join(home, 'runtime')), 'runtime');
});

test('operator.token as a link: neither adopted nor chmodded', async (t) => {
  await refused(
    t,
    (home, out) => {
      writeFileSync(join(out, 'token'), `${'a'.repeat(43)}\n`, { mode: 0o644 });
      symlinkSync(join(out, 'token'), join(home, 'operator.token'));
    },
    'operator.token',
  );
});

for (const name of [
  'daemon.log',
  'daemon.json',
  'daemon.owner',
  'daemon.lock',
  'store.db',
  'store.db-wal',
  'store.db-shm',
]) {
  test(`${name} as a link: refused at start, target untouched`, async (t) => {
    await refused(t, (home, out) => symlinkSync(join(out, 'precious'), join(home, name)), name);
  });
}

test('a dangling link is refused too (a create would land outside)', async (t) => {
  await refused(
    t,
    (home, out) => symlinkSync(join(out, 'not-yet'), join(home, 'store.db')),
    'store.db',
  );
});

test('links planted while the daemon runs: no token directory lands in the target, the log does not append through it', async (t) => {
  const { home, env, track } = tempHome(t);
  const out = outside(t);
  // A stale entry inside runtime/ that is a link: unlinked at start, never followed.
  mkdirSync(join(home, 'runtime'), { mode: 0o700 });
  writeFileSync(join(out, 'precious'), 'keep me\n', { mode: 0o644 });
  symlinkSync(out, join(home, 'runtime', 'stale'));
  const ready = await startDaemonCli(env, track);
  assert.deepEqual(readdirSync(join(home, 'runtime')), []);
  assert.deepEqual(readdirSync(out), ['precious']);

  renameSync(join(home, 'runtime'), join(home, 'runtime.moved'));
  symlinkSync(out, join(home, 'runtime'));
  const run = await cliEnv(
    ['run', '--server', 's1', '--agent', 'a1', '--', process.execPath, '-e', '0'],
    env,
  );
  assert.notEqual(run.code, 0, 'lease refused');
  assert.deepEqual(readdirSync(out), ['precious'], 'no token directory in the link target');

  writeFileSync(join(out, 'log'), '', { mode: 0o644 });
  rmSync(join(home, 'daemon.log'), { force: true });
  symlinkSync(join(out, 'log'), join(home, 'daemon.log'));
  // An invalid profile makes the daemon write a diagnostic on reload.
  writeFileSync(join(home, 'profile.json'), '{not json');
  process.kill(ready.pid, 'SIGHUP');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(readFileSync(join(out, 'log'), 'utf8'), '', 'nothing appended through the link');
  assert.equal(statSync(join(out, 'log')).mode & 0o777, 0o644);
  assert.equal(alive(ready.pid), true);
  // The same diagnostic does reach a real log file (so the check above could fail).
  rmSync(join(home, 'daemon.log'));
  process.kill(ready.pid, 'SIGHUP');
  assert.ok(
    await waitFor(
      () =>
        existsSync(join(home, 'daemon.log')) &&
        readFileSync(join(home, 'daemon.log'), 'utf8').includes('profile'),
      3000,
    ),
    'log written',
  );
  assert.equal(statSync(join(home, 'daemon.log')).mode & 0o777, 0o600);

  assert.equal((await cliEnv(['daemon', 'stop'], env)).code, 0);
  assert.ok(await waitFor(() => !alive(ready.pid), 5000));
  assert.deepEqual(readdirSync(out).sort(), ['log', 'precious']);
});
