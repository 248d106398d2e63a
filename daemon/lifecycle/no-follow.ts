import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/**
 * The daemon never follows a symbolic link inside its home: a link there
 * would let whoever planted it turn the daemon's own writes, chmods and
 * deletes against files elsewhere (a `runtime/` link would have its target
 * emptied at start, a linked `operator.token` adopted and chmodded). Fixed
 * names are checked with lstat at start; every open below also passes
 * O_NOFOLLOW, so a link planted after the check fails with ELOOP instead of
 * being followed.
 */
export class HomeLinkError extends Error {
  override name = 'HomeLinkError';
  constructor(readonly path: string) {
    super(
      `refusing to start: ${path} is a symbolic link (the daemon never follows links inside its home; remove it)`,
    );
  }
}

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/** Throws HomeLinkError when `path` is a link; a missing path is fine. */
function assertNotLink(path: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (st.isSymbolicLink()) throw new HomeLinkError(path);
}

/** Creates (0700) or re-modes a directory that must be a real directory, not a link. */
export function ensurePrivateDirSync(path: string): void {
  assertNotLink(path);
  try {
    fs.mkdirSync(path, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = fs.lstatSync(path);
  if (st.isSymbolicLink()) throw new HomeLinkError(path);
  if (!st.isDirectory()) throw new Error(`refusing to start: ${path} is not a directory`);
  fs.chmodSync(path, 0o700);
}

function openNoFollow(path: string, flags: number, mode?: number): number {
  try {
    return fs.openSync(path, flags | O_NOFOLLOW, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new HomeLinkError(path);
    throw err;
  }
}

/** Reads a file that must not be a link (ENOENT passes through as the usual error). */
export function readFileNoFollow(path: string): string {
  const fd = openNoFollow(path, O_RDONLY);
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Appends to a file (created 0600) that must not be a link. */
export function appendFileNoFollow(path: string, text: string): void {
  const fd = openNoFollow(path, O_WRONLY | O_APPEND | O_CREAT, 0o600);
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replaces `path` atomically with a new 0600 file. The temporary name is
 * fresh and opened exclusively, and rename replaces a link rather than
 * writing through it.
 */
export function writeFileAtomicSync(path: string, text: string): void {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openNoFollow(tmp, O_WRONLY | O_CREAT | O_EXCL, 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path);
}

/** Every fixed name the daemon writes, opens or deletes in its home (store side files included). */
const HOME_ENTRIES: readonly string[] = [
  'daemon.json',
  'daemon.port',
  'daemon.owner',
  'daemon.lock',
  'operator.token',
  'daemon.log',
  'runtime',
  'instance.id',
  'store.db',
  'store.db-wal',
  'store.db-shm',
  'store.db-journal',
];

/** Start-up check: none of the daemon's own names in `home` may be a link. */
export function refuseHomeLinks(home: string): void {
  for (const name of HOME_ENTRIES) assertNotLink(join(home, name));
}
