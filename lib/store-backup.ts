import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * A consistent online copy of the store, shared by the daemon (operator
 * route, through its own connection) and `agentteam store backup` when no
 * daemon runs. SQLite's backup API copies a snapshot in steps between which
 * the daemon keeps serving; pages its own connection changes meanwhile are
 * carried into the copy, and a write by another connection restarts it.
 *
 * The copy is written to a fresh 0600 temporary beside the target and then
 * linked into place (refusing an existing file) or, when overwriting,
 * renamed over it, so the target is never a half-written file.
 */
export class BackupTargetError extends Error {
  override name = 'BackupTargetError';
}

interface BackupResult {
  readonly path: string;
  readonly bytes: number;
  readonly pages: number;
  readonly ms: number;
}

/**
 * `home` is the daemon's home: a copy is never written inside it, where
 * `--force` could replace the live store (or its WAL) under the daemon.
 */
export async function backupSqlite(
  db: BetterSqlite3.Database,
  dest: string,
  overwrite: boolean,
  home: string,
): Promise<BackupResult> {
  if (!isAbsolute(dest))
    throw new BackupTargetError(`the backup path must be absolute, got "${dest}"`);
  const realDir = realpathOrNull(dirname(dest));
  const realHome = realpathOrNull(home) ?? home;
  if (realDir && (realDir === realHome || realDir.startsWith(realHome + sep))) {
    throw new BackupTargetError(
      `refusing to write the backup inside the daemon's home (${home}); choose a path outside it`,
    );
  }
  const existing = lstatOrNull(dest);
  if (existing && !overwrite)
    throw new BackupTargetError(`${dest} already exists (pass --force to overwrite it)`);
  if (existing?.isDirectory()) throw new BackupTargetError(`${dest} is a directory`);
  const started = Date.now();
  const tmp = join(dirname(dest), `.${basename(dest)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number;
  try {
    fd = fs.openSync(
      tmp,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      0o600,
    );
  } catch (err) {
    throw new BackupTargetError(
      `cannot write into ${dirname(dest)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  fs.fchmodSync(fd, 0o600);
  fs.closeSync(fd);
  try {
    const r = await db.backup(tmp);
    fs.chmodSync(tmp, 0o600);
    if (overwrite) fs.renameSync(tmp, dest);
    else {
      try {
        fs.linkSync(tmp, dest);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST')
          throw new BackupTargetError(`${dest} already exists (pass --force to overwrite it)`);
        throw err;
      }
      fs.unlinkSync(tmp);
    }
    return {
      path: dest,
      bytes: fs.statSync(dest).size,
      pages: r.totalPages,
      ms: Date.now() - started,
    };
  } finally {
    for (const f of [tmp, `${tmp}-journal`]) fs.rmSync(f, { force: true });
  }
}

function realpathOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}
