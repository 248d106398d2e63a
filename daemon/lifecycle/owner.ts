import * as fs from 'node:fs';
import { readFileNoFollow, writeFileAtomicSync } from './no-follow.js';

/** Who holds the singleton: written under the lock, decides the winner of a double win. */
export interface OwnerRecord {
  readonly pid: number;
  readonly nonce: string;
  readonly startedAt: number;
  /** The daemon's entry script, to tell a live daemon from a recycled pid (Linux /proc). */
  readonly argv1: string;
}

export function readOwner(path: string): OwnerRecord | null {
  const r = readOwnerState(path);
  return r.state === 'record' ? r.rec : null;
}

/**
 * The owner record, or why there is none. `unreadable` (EMFILE, EIO, a
 * damaged file) proves nothing about who owns the home; callers that would
 * stop on a foreign owner must retry rather than act on it.
 */
export type OwnerRead =
  | { readonly state: 'record'; readonly rec: OwnerRecord }
  | { readonly state: 'missing' }
  | { readonly state: 'unreadable'; readonly error: string };

export function readOwnerState(path: string): OwnerRead {
  let text: string;
  try {
    text = readFileNoFollow(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? { state: 'missing' }
      : { state: 'unreadable', error: code ?? (err as Error).message };
  }
  try {
    const v = JSON.parse(text) as OwnerRecord;
    if (typeof v.pid === 'number' && typeof v.nonce === 'string')
      return { state: 'record', rec: v };
  } catch {
    // fall through
  }
  return { state: 'unreadable', error: 'malformed owner record' };
}

/** Atomic and synchronous: no event-loop turn between a caller's check and this write. */
export function writeOwner(path: string, rec: OwnerRecord): void {
  writeFileAtomicSync(path, JSON.stringify(rec));
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
