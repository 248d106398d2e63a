import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homePaths } from '../../lib/home.js';

/** Returns the operator token, creating it (0600, 256 random bits) at first start. */
export function ensureOperatorToken(home: string): string {
  const path = homePaths(home).operatorToken;
  try {
    const existing = fs.readFileSync(path, 'utf8').trim();
    if (existing.length >= 32) {
      fs.chmodSync(path, 0o600);
      return existing;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, token + '\n', { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, path);
  return token;
}

export interface DaemonInfo {
  readonly url: string;
  readonly pid: number;
  readonly startedAt: number;
}

export function writeDaemonInfo(home: string, info: DaemonInfo): void {
  const path = homePaths(home).daemonJson;
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(info) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, path);
}

/** Removes daemon.json only if it still describes this process. */
export function removeDaemonInfo(home: string, pid: number): void {
  const path = homePaths(home).daemonJson;
  try {
    const cur = JSON.parse(fs.readFileSync(path, 'utf8')) as DaemonInfo;
    if (cur.pid === pid) fs.rmSync(path, { force: true });
  } catch {
    // already gone or unreadable: nothing of ours to remove
  }
}

/** Removes every credential directory an earlier daemon left behind; we hold the lock, so none is live. */
export function sweepRuntimeDir(runtimeDir: string): number {
  fs.mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(runtimeDir, 0o700);
  let n = 0;
  for (const name of fs.readdirSync(runtimeDir)) {
    fs.rmSync(`${runtimeDir}/${name}`, { recursive: true, force: true });
    n++;
  }
  return n;
}
