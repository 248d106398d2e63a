import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { ensureHome, MAX_HOME_DEPTH } from '../../lib/home.js';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { spawnSync, type SpawnOptions } from 'node:child_process';
import { BIN, cliEnv } from '../../devkit/daemon.js';

/** Root ignores file permissions, so as root the permission case runs the CLI as `nobody`, if it can read the build. */
const NOBODY = 65534;
const asUnprivileged: SpawnOptions | null = (() => {
  if (process.getuid?.() !== 0) return {};
  const probe = spawnSync(process.execPath, [BIN, '--version'], {
    uid: NOBODY,
    gid: NOBODY,
    stdio: 'ignore',
    timeout: 10_000,
  });
  return probe.status === 0 ? { uid: NOBODY, gid: NOBODY } : null;
})();

/**
 * `daemon start` with an AGENTTEAM_HOME that cannot be used: one line naming
 * the home, a non-zero exit within a second or so, and no process left
 * behind (detached or not). Node's own recursive mkdir spins forever on
 * /proc/<missing>, ignoring SIGTERM; the daemon no longer uses it for the home.
 */

/** Pids of processes whose environment has exactly this AGENTTEAM_HOME (an orphaned daemon would). */
function holders(home: string): number[] {
  const needle = `\0AGENTTEAM_HOME=${home}\0`;
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${name}/environ`, 'latin1')}`.includes(needle))
        out.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-badhome-'));
  t.after(() => {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

async function refused(
  home: string,
  reason: RegExp,
  extra: string[] = [],
  as: SpawnOptions = {},
): Promise<void> {
  // What starting one CLI process costs right now (the machine may be busy): the bound scales with it.
  const t0 = Date.now();
  await cliEnv(['--version'], process.env);
  const baseline = Date.now() - t0;
  const started = Date.now();
  const r = await cliEnv(
    ['daemon', 'start', ...extra],
    { ...process.env, AGENTTEAM_HOME: home },
    { timeout: 30_000, ...as },
  );
  const ms = Date.now() - started;
  assert.equal(r.code, 2, `exit 2; stderr: ${r.stderr}`);
  // Detached, the CLI relays the refusal as an envelope too; in the foreground stdout is the daemon's own.
  if (extra.includes('--foreground')) assert.equal(r.stdout, '');
  else assert.equal(JSON.parse(r.stdout).error.code, 'usage');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.ok(lines[0]!.startsWith(`agentteam: cannot use ${home} as AGENTTEAM_HOME: `), lines[0]);
  assert.match(lines[0]!, reason);
  // The daemon checks the home before loading its server: about 0.15 s for the CLI and the daemon
  // together on a quiet machine. Two node processes start on the way, so the bound is a second plus
  // three times what one costs now; a spinning daemon never answers at all.
  assert.ok(ms < 1_000 + 3 * baseline, `refused after ${ms} ms (one CLI start: ${baseline} ms)`);
  assert.deepEqual(holders(home), [], 'no daemon left running');
}

for (const mode of [[], ['--foreground']]) {
  const how = mode.length ? 'foreground' : 'detached';

  test(`unusable home (${how}): a path under /proc that cannot be created`, async () => {
    await refused(
      `/proc/agentteam-nope-${randomBytes(6).toString('hex')}`,
      /it cannot be created there \(ENOENT at \/proc\//,
      mode,
    );
  });

  test(`unusable home (${how}): a regular file, and a path under one`, async (t) => {
    const file = join(scratch(t), 'plain-file');
    writeFileSync(file, 'not a directory\n');
    await refused(file, /it exists and is not a directory$/, mode);
    await refused(join(file, 'sub'), /a parent is not a directory \(ENOTDIR/, mode);
  });

  test(`unusable home (${how}): a parent without write permission`, async (t) => {
    if (!asUnprivileged)
      return t.skip(
        'running as root, and user nobody cannot read the build to run as someone file permissions restrict',
      );
    const parent = scratch(t);
    chmodSync(parent, 0o555); // others may enter, nobody may create
    await refused(join(parent, 'home'), /permission denied \(EACCES at /, mode, asUnprivileged);
  });
}

test('unusable home: at most 64 missing directories are made for it; one more is refused before any is made', async (t) => {
  const base = scratch(t);
  const deep = (n: number) => join(base, ...Array.from({ length: n }, () => 'd'));
  assert.equal(ensureHome({ AGENTTEAM_HOME: deep(MAX_HOME_DEPTH) }), deep(MAX_HOME_DEPTH));
  assert.equal(statSync(deep(MAX_HOME_DEPTH)).mode & 0o777, 0o700);
  rmSync(join(base, 'd'), { recursive: true });
  await refused(deep(MAX_HOME_DEPTH + 1), /more than 64 of its directories are missing$/);
  assert.equal(existsSync(join(base, 'd')), false, 'nothing made');
});
