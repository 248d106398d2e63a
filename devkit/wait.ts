import { readFileSync } from 'node:fs';

/** Waiting in tests: for a time, for a condition, for a process to be gone. */

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Running (a zombie awaiting its reaper counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Polls `cond` every `step` ms for up to `ms`; its last answer. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  ms: number,
  step = 10,
): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, step));
  }
  return cond();
}
