import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { DaemonFile } from '../catalog/operator/daemon-file.js';
import { homePaths } from '../lib/home.js';
import {
  operatorClient,
  type OperatorAnswer,
  type OperatorClient,
  type OperatorRequest,
} from '../lib/operator-client.js';

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

/**
 * The CLI's operator API client (lib/operator-client.ts) for this home: each
 * call reads daemon.json and the operator token, then sends one node:http
 * request with the token as Bearer (node:http, not fetch: fetch's first call
 * loads undici, milliseconds of every command). Throws NoDaemonError when
 * none runs or it does not answer.
 */
export function daemonOperator(home: string): OperatorClient {
  return operatorClient((req) => {
    const info = readDaemonInfo(home);
    if (!info) throw new NoDaemonError(`no daemon is running for ${home}`);
    return sendHttp(info, readOperatorToken(home), req);
  });
}

function sendHttp(info: DaemonInfo, token: string, r: OperatorRequest): Promise<OperatorAnswer> {
  const payload = r.body === undefined ? undefined : Buffer.from(r.body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(r.path, info.url),
      {
        method: r.method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': String(payload.length) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = { raw: text };
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET'
          ? new NoDaemonError(`the daemon at ${info.url} does not answer`)
          : err,
      );
    });
    req.end(payload);
  });
}
