import * as fs from 'node:fs';
import { connect } from 'node:net';
import { ensurePrivateDirSync } from './no-follow.js';

/** Longest unix socket path Linux and macOS accept (sun_path, with its NUL). */
const SUN_PATH_MAX = 103;
/** How long a connect to a leftover socket may take before it counts as nobody listening. */
const PROBE_MS = 500;

/** Why the socket is not served (the daemon still serves HTTP): said once in the diagnostics. */
export class SocketPathError extends Error {
  override name = 'SocketPathError';
}

/** Whether something accepts connections on the unix socket at `path`. */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ path });
    const done = (v: boolean) => {
      clearTimeout(t);
      s.destroy();
      resolve(v);
    };
    const t = setTimeout(() => done(true), PROBE_MS);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Makes the path free for the daemon's own socket, without ever following a
 * link: the directory is created 0700 (a link there refuses the start, as
 * for every fixed name of the home) and must be this user's; at the path, a
 * link is removed as a link (its target is never touched), a socket left by
 * a daemon that died is removed only when connecting to it fails, and
 * anything else (a live socket, a file, a directory) is left alone and the
 * socket not served. bind() itself never follows a link, so one planted
 * between this check and the bind makes the bind fail, not land elsewhere.
 */
export async function freeSocketPath(dir: string, path: string): Promise<string | null> {
  if (Buffer.byteLength(path) > SUN_PATH_MAX)
    throw new SocketPathError(`the socket path is longer than ${SUN_PATH_MAX} bytes: ${path}`);
  ensurePrivateDirSync(dir);
  const d = fs.lstatSync(dir);
  if (process.getuid && d.uid !== process.getuid())
    throw new SocketPathError(`${dir} belongs to uid ${d.uid}, not to this user`);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (st.isSymbolicLink()) {
    fs.unlinkSync(path);
    return 'link_removed';
  }
  if (!st.isSocket()) throw new SocketPathError(`${path} exists and is not a socket`);
  if (await listening(path))
    throw new SocketPathError(`another process listens on ${path}; the socket is not served`);
  fs.unlinkSync(path);
  return 'stale_removed';
}

/** The identity of the socket file the daemon bound, to check it is still the same file. */
interface SocketIdentity {
  readonly dev: number;
  readonly ino: number;
}

/**
 * Narrows the bound socket to its owner (0600) and records which file it is.
 * Nobody else can reach it meanwhile: the directory is 0700.
 */
export function sealSocket(path: string): SocketIdentity {
  const st = fs.lstatSync(path);
  if (!st.isSocket()) throw new SocketPathError(`${path} is not the socket just bound`);
  fs.chmodSync(path, 0o600);
  return { dev: st.dev, ino: st.ino };
}

/**
 * The check made on every connection: the directory is still a 0700
 * directory of this user and the path is still the very socket bound, 0600
 * and this user's. Together with the kernel's rule that connecting to a
 * unix socket needs write permission on it (and search permission on its
 * directory), only this user (or root) can be the peer.
 */
export function socketStillPrivate(dir: string, path: string, id: SocketIdentity): boolean {
  try {
    const uid = process.getuid ? process.getuid() : null;
    const d = fs.lstatSync(dir);
    const s = fs.lstatSync(path);
    return (
      d.isDirectory() &&
      (d.mode & 0o777) === 0o700 &&
      (uid === null || d.uid === uid) &&
      s.isSocket() &&
      s.dev === id.dev &&
      s.ino === id.ino &&
      (s.mode & 0o777) === 0o600 &&
      (uid === null || s.uid === uid)
    );
  } catch {
    return false;
  }
}

/** Removes the socket at stop, only if it is still the one bound. */
export function removeSocket(path: string, id: SocketIdentity): void {
  try {
    const st = fs.lstatSync(path);
    if (st.isSocket() && st.dev === id.dev && st.ino === id.ino) fs.unlinkSync(path);
  } catch {
    // already gone
  }
}
