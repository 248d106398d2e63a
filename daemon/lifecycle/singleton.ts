import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import {
  isOwnerAlive,
  readOwner,
  readOwnerState,
  writeOwner,
  type OwnerRead,
  type OwnerRecord,
} from './owner.js';

export class AlreadyRunningError extends Error {
  override name = 'AlreadyRunningError';
  constructor(readonly pid: number | null) {
    super(
      pid === null
        ? 'another daemon is starting for this home'
        : `a daemon is already running for this home (pid ${pid})`,
    );
  }
}

/**
 * What a periodic look at the owner record proves. Only `lost` (the record
 * names another live daemon) is a reason to stop; `unknown` (the record is
 * unreadable, missing or names a dead process) is logged and looked at again.
 */
type OwnershipCheck =
  | { readonly state: 'ours' }
  | { readonly state: 'lost'; readonly pid: number }
  | { readonly state: 'unknown'; readonly reason: string; readonly repaired: boolean };

interface Singleton {
  readonly nonce: string;
  /** True while the owner record still names this process and start nonce. */
  verify(): boolean;
  /** The periodic ownership check; never throws. */
  check(): OwnershipCheck;
  release(): Promise<void>;
}

/** Time a winner waits after writing its owner record before trusting it (see specs/daemon.md). */
const SETTLE_MS = 150;
const ACQUIRE_DEADLINE_MS = 8_000;
/** A lock without any owner record older than this was left by a process that died while starting. */
const ORPHAN_LOCK_MS = 3_000;

/**
 * One daemon per home: proper-lockfile's directory lock, then a second check
 * through an owner record (pid + start nonce) written under the lock. The
 * lock alone can be won twice when two contenders reclaim a stale lock at
 * once; the last owner record written decides, and the loser leaves without
 * touching the lock directory (its fs hooks are disarmed, including the
 * library's exit-time cleanup).
 */
export async function acquireSingleton(
  home: string,
  onCompromised: (err: Error) => void,
): Promise<Singleton> {
  const target = join(home, 'daemon');
  const lockDir = `${target}.lock`;
  const ownerPath = join(home, 'daemon.owner');
  const nonce = randomBytes(16).toString('hex');
  let owned = true;
  const guardedFs = {
    ...fs,
    rmdir: (p: string, cb: (err: NodeJS.ErrnoException | null) => void) =>
      owned ? fs.rmdir(p, cb) : cb(null),
    rmdirSync: (p: string) => {
      if (owned) fs.rmdirSync(p);
    },
  };
  let acquired = false;
  let release: () => Promise<void> = async () => undefined;
  const options = {
    realpath: false,
    stale: 10_000,
    update: 2_000,
    fs: guardedFs,
    onCompromised: (err: Error) => {
      owned = false;
      if (!acquired) return; // still deciding: the owner-record check settles it
      void adopt().then((ok) => {
        if (!ok) onCompromised(err);
      });
    },
  };
  /**
   * After a double win the owner-record winner's lock directory may be the
   * loser's (the loser removed ours while reclaiming). The owner record is the
   * authority: while it still names us, take the lock over instead of leaving
   * no daemon at all. Otherwise someone else owns the home: stop.
   */
  const adopt = async (): Promise<boolean> => {
    if (foreignLiveOwner(await readSettled(ownerPath), nonce)) return false;
    const st = statOrNull(lockDir);
    if (st) reclaimDeadLock(lockDir, st, nonce);
    try {
      release = await lockfile.lock(target, options);
    } catch {
      return false;
    }
    owned = true;
    const after = await readSettled(ownerPath);
    if (foreignLiveOwner(after, nonce)) return false;
    if (after.state !== 'record' || after.rec.nonce !== nonce) repairOwner();
    return true;
  };
  const mine: OwnerRecord = {
    pid: process.pid,
    nonce,
    startedAt: Date.now(),
    argv1: process.argv[1] ?? '',
  };
  /** Puts our record back while we hold the lock and nobody live claims the home. */
  const repairOwner = (): boolean => {
    if (!owned) return false;
    try {
      writeOwner(ownerPath, mine);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + ACQUIRE_DEADLINE_MS;
  for (;;) {
    try {
      release = await lockfile.lock(target, options);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOENT: the lock vanished between the library's mkdir and stat (another contender reclaimed it).
      if (code === 'ENOENT' && Date.now() < deadline) continue;
      if (code !== 'ELOCKED') throw err;
      const st = statOrNull(lockDir);
      const owner = readOwner(ownerPath);
      if (owner && isOwnerAlive(owner)) throw new AlreadyRunningError(owner.pid);
      if (st && (owner || Date.now() - st.mtimeMs > ORPHAN_LOCK_MS))
        reclaimDeadLock(lockDir, st, nonce);
      else if (Date.now() > deadline) throw new AlreadyRunningError(null);
      await sleep(20 + Math.floor(Math.random() * 30));
    }
  }
  const disarm = () => {
    owned = false;
  };
  // Second check. Read and write back to back (synchronously) so the window
  // between seeing "no live owner" and claiming is far shorter than SETTLE_MS.
  const prior = readOwner(ownerPath);
  if (prior && prior.nonce !== nonce && isOwnerAlive(prior)) {
    disarm();
    throw new AlreadyRunningError(prior.pid);
  }
  writeOwner(ownerPath, mine);
  await sleep(SETTLE_MS);
  const now = readOwner(ownerPath);
  if (!now || now.nonce !== nonce) {
    disarm();
    throw new AlreadyRunningError(now?.pid ?? null);
  }
  acquired = true;
  return {
    nonce,
    verify: () => readOwner(ownerPath)?.nonce === nonce,
    check(): OwnershipCheck {
      const r = readOwnerState(ownerPath);
      if (r.state === 'record' && r.rec.nonce === nonce) return { state: 'ours' };
      if (r.state === 'unreadable') return { state: 'unknown', reason: r.error, repaired: false };
      if (r.state === 'record' && isOwnerAlive(r.rec)) return { state: 'lost', pid: r.rec.pid };
      const reason =
        r.state === 'missing' ? 'owner record missing' : `owner record names dead pid ${r.rec.pid}`;
      return { state: 'unknown', reason, repaired: repairOwner() };
    },
    async release() {
      if (!owned) return;
      if (readOwner(ownerPath)?.nonce === nonce) fs.rmSync(ownerPath, { force: true });
      await release().catch(() => undefined);
      owned = false;
    },
  };
}

/** The owner record, read again (up to ~2 s) while it is unreadable: a read error proves nothing. */
async function readSettled(path: string): Promise<OwnerRead> {
  let r = readOwnerState(path);
  for (let i = 0; i < 10 && r.state === 'unreadable'; i++) {
    await sleep(200);
    r = readOwnerState(path);
  }
  return r;
}

function foreignLiveOwner(r: OwnerRead, nonce: string): boolean {
  return r.state === 'record' && r.rec.nonce !== nonce && isOwnerAlive(r.rec);
}

function statOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * Removes a lock whose owner is dead. Renames first and compares identity, so
 * a lock another contender took between our stat and the rename is put back
 * untouched (rename keeps its mtime, which proper-lockfile checks).
 */
function reclaimDeadLock(lockDir: string, seen: fs.Stats, nonce: string): void {
  const tomb = `${lockDir}.stale-${nonce}`;
  try {
    fs.renameSync(lockDir, tomb);
  } catch {
    return;
  }
  const moved = statOrNull(tomb);
  if (moved && moved.ino === seen.ino && moved.mtimeMs === seen.mtimeMs) {
    fs.rmSync(tomb, { recursive: true, force: true });
    return;
  }
  try {
    fs.renameSync(tomb, lockDir);
  } catch {
    fs.rmSync(tomb, { recursive: true, force: true });
  }
}
