import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';

/** Who holds the singleton: written under the lock, decides the winner of a double win. */
export interface OwnerRecord {
  readonly pid: number;
  readonly nonce: string;
  readonly startedAt: number;
  /** The daemon's entry script, to tell a live daemon from a recycled pid (Linux /proc). */
  readonly argv1: string;
}

export function readOwner(path: string): OwnerRecord | null {
  try {
    const v = JSON.parse(fs.readFileSync(path, 'utf8')) as OwnerRecord;
    return typeof v.pid === 'number' && typeof v.nonce === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** Atomic and synchronous: no event-loop turn between a caller's check and this write. */
export function writeOwner(path: string, rec: OwnerRecord): void {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(rec), { mode: 0o600 });
  fs.renameSync(tmp, path);
}

/** Whether a process still runs; a zombie (exited, not yet reaped) counts as gone (Linux /proc). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

export function isOwnerAlive(rec: OwnerRecord): boolean {
  if (!isPidAlive(rec.pid)) return false;
  try {
    const cmdline = fs.readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8');
    return rec.argv1 === '' || cmdline.includes(rec.argv1);
  } catch {
    return true; // no /proc: trust the pid
  }
}
