import { readFileSync } from 'node:fs';
import type { DaemonFile } from '../catalog/operator/daemon-file.js';
import { homePaths } from '../lib/home.js';
import { operatorClient, type OperatorClient } from '../lib/operator-client.js';
import { type DaemonTarget, openHttpStream, sendHttp } from './daemon-http.js';

/** A running daemon as recorded in $AGENTTEAM_HOME/daemon.json (catalog/operator/daemon-file.ts). */
export type DaemonInfo = Pick<DaemonFile, 'url' | 'pid'>;

/** Raised when no daemon answers for this home; cli/program.ts turns its exitCode into the exit status. */
export class NoDaemonError extends Error {
  override name = 'NoDaemonError';
  readonly exitCode = 3;
}

/** Whether a process still runs. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** A zombie (exited, not yet reaped by its parent) counts as gone; Linux only, elsewhere kill(0) decides. */
function isZombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** daemon.json if it names a live process, else null. */
export function readDaemonInfo(home: string): DaemonInfo | null {
  try {
    const v = JSON.parse(readFileSync(homePaths(home).daemonJson, 'utf8')) as DaemonFile;
    if (typeof v.url !== 'string' || typeof v.pid !== 'number') return null;
    return pidAlive(v.pid) ? { url: v.url, pid: v.pid } : null;
  } catch {
    return null;
  }
}

export function readOperatorToken(home: string): string {
  try {
    return readFileSync(homePaths(home).operatorToken, 'utf8').trim();
  } catch {
    throw new NoDaemonError(`no operator token in ${home}; is the daemon running?`);
  }
}

/** A failure to reach the daemon at all says so as NoDaemonError; any other error stays as it is. */
function unreachable(info: DaemonInfo): (err: NodeJS.ErrnoException) => never {
  return (err) => {
    throw err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET'
      ? new NoDaemonError(`the daemon at ${info.url} does not answer`)
      : err;
  };
}

/** daemon.json and the operator token, read when a call is made. */
function reach(home: string): { info: DaemonInfo; target: DaemonTarget } {
  const info = readDaemonInfo(home);
  if (!info) throw new NoDaemonError(`no daemon is running for ${home}`);
  return { info, target: { url: info.url, token: readOperatorToken(home) } };
}

/**
 * The CLI's operator API client (lib/operator-client.ts) for this home: each
 * call (or stream) reads daemon.json and the operator token, then sends one
 * node:http request with the token as Bearer (cli/daemon-http.ts). Throws
 * NoDaemonError when none runs or it does not answer.
 */
export function daemonOperator(home: string): OperatorClient {
  return operatorClient(
    async (req) => {
      const t = reach(home);
      return sendHttp(t.target, req).catch(unreachable(t.info));
    },
    async (req, signal) => {
      const t = reach(home);
      return openHttpStream(t.target, req, signal).catch(unreachable(t.info));
    },
  );
}
