import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { readOperatorToken } from './daemon-client.js';
import { nextDaemon, openLease, type OpenLease } from './lease.js';
import type { LeaseRequest } from '../catalog/operator/lease.js';

/** How long `run` waits for a daemon that went away to come back (`--restart-wait SECONDS`). */
export const DEFAULT_RESTART_WAIT_S = 30;
/** A runtime that `run` stops gets SIGTERM, then SIGKILL this much later. */
const STOP_GRACE_MS = 5_000;

interface FollowOptions {
  readonly home: string;
  /** The daemon the first lease came from. */
  readonly pid: number;
  /** The lease request, sent again (with `resumeDir`) to the next daemon. */
  readonly body: LeaseRequest;
  readonly first: OpenLease;
  readonly waitMs: number;
  readonly exited: () => boolean;
  readonly renewed: (next: OpenLease) => void;
}

/**
 * Follows the daemon for the runtime's lifetime. A lease that ends because
 * the daemon shut down or died (not because the runtime was replaced or an
 * operator revoked it) is renewed from the next daemon of this home: a
 * fresh authorization whose token file has the same path (`resumeDir`).
 * That is only possible at the same address, since the runtime's
 * environment names the old daemon's URL (a daemon on an ephemeral port
 * asks for its predecessor's port first). Resolves with a one-line reason
 * when the runtime has to be stopped instead, or null when there is nothing
 * more to do.
 */
export async function followDaemon(o: FollowOptions): Promise<string | null> {
  const origin = new URL(o.first.lease.execBaseUrl).origin;
  let current = o.first;
  let gonePid = o.pid;
  for (;;) {
    const reason = await current.ended;
    // The daemon died (no last line): its port is free for any process of any account to bind,
    // and the runtime would send it the dead token with each call's body. Without the file the
    // runtime's calls fail closed and send nothing; the next daemon writes a new one.
    if (reason === null) await rm(current.lease.tokenFile, { force: true }).catch(() => undefined);
    if (o.exited()) return null;
    if (reason !== null && reason !== 'shutdown') return null; // replaced, or revoked by an operator
    const next = await nextDaemon(o.home, gonePid, Date.now() + o.waitMs, o.exited);
    if (o.exited()) return null;
    if (!next)
      return `the daemon went away and none came back within ${o.waitMs / 1000} s; stopped the runtime`;
    if (new URL(next.url).origin !== origin) {
      return `the daemon restarted at ${next.url}, not at ${origin} where the runtime reaches it; stopped the runtime`;
    }
    try {
      const resume = {
        resumeDir: basename(o.first.lease.privateDir),
        resumeSecret: o.first.lease.resumeSecret,
      };
      current = await openLease(next.url, readOperatorToken(o.home), { ...o.body, ...resume });
    } catch (err) {
      return `the daemon restarted but did not renew the runtime's authorization (${(err as Error).message}); stopped the runtime`;
    }
    o.renewed(current);
    if (current.lease.tokenFile !== o.first.lease.tokenFile) {
      return `the restarted daemon put the runtime's token file at ${current.lease.tokenFile}; stopped the runtime`;
    }
    gonePid = next.pid;
  }
}

/** Says why on stderr, then SIGTERM and, if the runtime is still there after a grace period, SIGKILL. */
export function stopRuntime(child: ChildProcess, reason: string): string {
  process.stderr.write(`agentteam: ${reason}\n`);
  child.kill('SIGTERM');
  const t = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }, STOP_GRACE_MS);
  t.unref();
  child.once('exit', () => clearTimeout(t));
  return reason;
}
