import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homePaths } from '../../lib/home.js';
import {
  ensurePrivateDirSync,
  HomeLinkError,
  readFileNoFollow,
  writeFileAtomicSync,
} from './no-follow.js';

/**
 * Returns the operator token, creating it (0600, 256 random bits) at first
 * start. An existing file is opened without following links and re-moded
 * through its descriptor, so a linked `operator.token` is neither adopted nor
 * chmodded.
 */
export function ensureOperatorToken(home: string): string {
  const path = homePaths(home).operatorToken;
  let fd: number | null = null;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new HomeLinkError(path);
    if (code !== 'ENOENT') throw err;
  }
  if (fd !== null) {
    try {
      if (!fs.fstatSync(fd).isFile())
        throw new Error(`refusing to start: ${path} is not a regular file`);
      const existing = fs.readFileSync(fd, 'utf8').trim();
      if (existing.length >= 32) {
        fs.fchmodSync(fd, 0o600);
        return existing;
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  const token = randomBytes(32).toString('base64url');
  writeFileAtomicSync(path, `${token}\n`);
  return token;
}

interface DaemonInfo {
  readonly url: string;
  readonly pid: number;
  readonly startedAt: number;
}

export function writeDaemonInfo(home: string, info: DaemonInfo): void {
  writeFileAtomicSync(homePaths(home).daemonJson, `${JSON.stringify(info)}\n`);
}

/** Removes daemon.json only if it still describes this process. */
export function removeDaemonInfo(home: string, pid: number): void {
  const path = homePaths(home).daemonJson;
  try {
    const cur = JSON.parse(readFileNoFollow(path)) as DaemonInfo;
    if (cur.pid === pid) fs.rmSync(path, { force: true });
  } catch {
    // already gone, unreadable or a link: nothing of ours to remove
  }
}

/**
 * Removes every credential directory an earlier daemon left behind; we hold
 * the lock, so none is live. `runtime/` itself must be a real directory (a
 * link is refused, its target untouched); an entry inside that is a link is
 * unlinked, never followed (fs.rm lstat's each entry).
 */
export function sweepRuntimeDir(runtimeDir: string): number {
  ensurePrivateDirSync(runtimeDir);
  let n = 0;
  for (const name of fs.readdirSync(runtimeDir)) {
    fs.rmSync(`${runtimeDir}/${name}`, { recursive: true, force: true });
    n++;
  }
  return n;
}

/**
 * The port the last daemon of this home listened on, when it chose an
 * ephemeral one for `host`. A restarted daemon tries it first, so runtimes
 * that outlived the old one (their environment names its URL) can be
 * re-leased at the same address. Null when none is recorded or it is unreadable.
 */
export function readLastPort(home: string, host: string): number | null {
  try {
    const v = JSON.parse(readFileNoFollow(homePaths(home).lastPort)) as {
      host?: unknown;
      port?: unknown;
    };
    return v.host === host &&
      Number.isInteger(v.port) &&
      (v.port as number) > 0 &&
      (v.port as number) < 65536
      ? (v.port as number)
      : null;
  } catch {
    return null;
  }
}

export function writeLastPort(home: string, host: string, port: number): void {
  writeFileAtomicSync(homePaths(home).lastPort, `${JSON.stringify({ host, port })}\n`);
}

/**
 * Makes the folders an operator and the agents fill, so a first-time user
 * finds them where the guidance and the README say: `memory/` (one folder per
 * agent, which the agent makes inside), `kb/` and `tools/`, each 0700. Only
 * a missing name is made, with a plain mkdir, which never follows a link:
 * an existing folder keeps its mode, and a link (planted, or the operator's
 * own) is left as it is and nothing is made or chmodded through it (the
 * memory and kb indexes never follow it; declarations are read through a
 * linked tools/, the operator's choice like a linked profile.json). The
 * names that were links are returned so the start-up log can tell.
 */
export function ensureHomeFolders(home: string): string[] {
  const p = homePaths(home);
  const links: string[] = [];
  for (const dir of [p.memory, p.kb, p.tools]) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) links.push(dir);
    }
  }
  return links;
}
