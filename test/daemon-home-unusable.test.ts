import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { spawnSync, type SpawnOptions } from 'node:child_process';
import { BIN, cli } from './daemon-harness.js';

/** Root ignores file permissions, so as root the permission case runs the CLI as `nobody`, if it can read the build. */
const NOBODY = 65534;
const asUnprivileged: SpawnOptions | null = (() => {
  if (process.getuid?.() !== 0) return {};
  const probe = spawnSync(process.execPath, [BIN, '--version'], { uid: NOBODY, gid: NOBODY, stdio: 'ignore', timeout: 10_000 });
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
      if (`\0${readFileSync(`/proc/${name}/environ`, 'latin1')}`.includes(needle)) out.push(Number(name));
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

async function refused(home: string, reason: RegExp, extra: string[] = [], as: SpawnOptions = {}): Promise<void> {
  const started = Date.now();
  const r = await cli(['daemon', 'start', ...extra], { ...process.env, AGENTTEAM_HOME: home }, as);
  const ms = Date.now() - started;
  assert.equal(r.code, 2, `exit 2; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.ok(lines[0]!.startsWith(`agentteam: cannot use ${home} as AGENTTEAM_HOME: `), lines[0]);
  assert.match(lines[0]!, reason);
  // The daemon checks the home before loading its server (about 0.4 s on an idle machine); the
  // bound leaves room for a loaded test machine, where starting two node processes is most of it.
  assert.ok(ms < 3_000, `refused after ${ms} ms`);
  assert.deepEqual(holders(home), [], 'no daemon left running');
}

for (const mode of [[], ['--foreground']]) {
  const how = mode.length ? 'foreground' : 'detached';

  test(`unusable home (${how}): a path under /proc that cannot be created`, async () => {
    await refused(`/proc/agentteam-nope-${randomBytes(6).toString('hex')}`, /it cannot be created there \(ENOENT at \/proc\//, mode);
  });

  test(`unusable home (${how}): a regular file, and a path under one`, async (t) => {
    const file = join(scratch(t), 'plain-file');
    writeFileSync(file, 'not a directory\n');
    await refused(file, /it exists and is not a directory$/, mode);
    await refused(join(file, 'sub'), /a parent is not a directory \(ENOTDIR/, mode);
  });

  test(`unusable home (${how}): a parent without write permission`, async (t) => {
    if (!asUnprivileged) return t.skip('running as root, and user nobody cannot read the build to run as someone file permissions restrict');
    const parent = scratch(t);
    chmodSync(parent, 0o555); // others may enter, nobody may create
    await refused(join(parent, 'home'), /permission denied \(EACCES at /, mode, asUnprivileged);
  });
}
