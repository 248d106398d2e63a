import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/**
 * Finding every process a declared command started, also those that left
 * its process group and session (`setsid`, a double fork: the grandchild is
 * re-parented to init, so neither the group nor the parent chain leads to
 * it). Each call's environment carries a marker variable with a value of its
 * own; a child inherits its parent's environment through fork, exec and
 * setsid, so every process still carrying the marker belongs to the call.
 * On Linux, /proc/<pid>/environ of the daemon's user's processes is
 * readable and the sweep kills each marked one. A process that deliberately
 * replaces its whole environment and leaves the session is not found: for
 * hostile commands, run the daemon in a container or a cgroup.
 */

/** The variable that marks a call's processes (set in the command's environment). */
export const CALL_MARKER_VAR = 'AGENTTEAM_TOOL_CALL';
/** Rounds of find-and-kill: a process forking during one round is caught by the next. */
const MAX_ROUNDS = 5;

export function newCallMarker(): string {
  return randomBytes(12).toString('hex');
}

function killNow(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** SIGKILL to the process group led by pid (what a command that stayed in its group needs). */
export function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** The pids of live (not zombie) processes whose environment holds `VAR=marker`. */
async function marked(needle: Buffer): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return []; // no /proc: only the process group is killed
  }
  const found: number[] = [];
  await Promise.all(
    names.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      const pid = Number(name);
      if (pid === process.pid) return;
      try {
        const env = await readFile(`/proc/${name}/environ`);
        if (env.indexOf(needle) !== 0 && env.indexOf(Buffer.concat([Buffer.from([0]), needle])) < 0)
          return;
        found.push(pid);
      } catch {
        // another user's process, or gone
      }
    }),
  );
  return found;
}

/**
 * Kills every process of the call (marked with `marker`) wherever it went,
 * off the event loop; resolves with how many were killed. Runs a few rounds
 * so that a process forking during a round is caught by the next.
 */
export async function killMarked(marker: string): Promise<number> {
  const needle = Buffer.from(`${CALL_MARKER_VAR}=${marker}\u0000`);
  let killed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const pids = await marked(needle);
    if (pids.length === 0) break;
    for (const pid of pids) killNow(pid);
    killed += pids.length;
  }
  return killed;
}
