import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * Pinned measurement for the HTTP benchmarks. With the server and the load
 * generator sharing both cores, a figure moved 2–3× within an hour: each
 * process took the other's core whenever it could. Pinned, the server
 * (every thread: the main thread, libuv's pool, the audit writer) runs on
 * core 0 and the load generator alone on core 1, so the server's CPU time
 * per request is its own and comparable between runs and with an anchor.
 *
 * On by default where `taskset` exists and the machine has at least two
 * cores; `BENCH_PIN=0` turns it off (colocated, as before).
 */

/** The core the measured server runs on, and the one the load generator runs on. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

function tasksetWorks(): boolean {
  const r = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

export const PINNED: boolean =
  process.env.BENCH_PIN !== '0' && availableParallelism() >= 2 && tasksetWorks();

/** Pins every thread of `pid` (present ones; later ones inherit it) to `core`. */
export function pinProcess(pid: number, core: number = SERVER_CORE): void {
  if (!PINNED) return;
  const r = spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status !== 0) throw new Error(`taskset could not pin ${pid}: ${r.stderr.toString()}`);
}

/**
 * Runs `fn` with this (the bench) process on the load generator's core and
 * `serverPid` on the server's, then gives this process every core back.
 */
export async function pinnedAround<T>(serverPid: number, fn: () => Promise<T>): Promise<T> {
  pinProcess(serverPid, SERVER_CORE);
  pinProcess(process.pid, LOAD_CORE);
  try {
    return await fn();
  } finally {
    if (PINNED) {
      const all = `0-${availableParallelism() - 1}`;
      spawnSync('taskset', ['-a', '-p', '-c', all, String(process.pid)], { stdio: 'ignore' });
    }
  }
}

/** The argv prefix that starts a program on `core` (empty when not pinned). */
export function onCore(core: number): string[] {
  return PINNED ? ['taskset', '-c', String(core)] : [];
}

/** User + system CPU time of a whole process (all its threads, exited ones too), in µs. */
export function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** How the figures of a run were taken, for its first row. */
export function placement(): string {
  return PINNED
    ? `pinned: server on core ${SERVER_CORE}, load generator on core ${LOAD_CORE}`
    : 'colocated (not pinned)';
}
