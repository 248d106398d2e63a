import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * The watchdog every turn's runtime runs under: a POSIX shell that leads
 * its own process group, starts the runtime with the prompt file on stdin,
 * and holds the read end of a pipe whose write end only the daemon has.
 * When the daemon goes away, even by kill -9, the pipe reaches end of file
 * and the watchdog stops the whole group (TERM, then KILL after the grace),
 * so no runtime outlives the daemon that started it.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" <"$AGENTTEAM_TURN_PROMPT_FILE" 3<&- &',
  'child=$!',
  `( trap '' TERM; while read -r _ <&3; do :; done; kill -TERM 0 2>/dev/null; sleep "$AGENTTEAM_TURN_GRACE_S"; kill -KILL 0 2>/dev/null ) &`,
  'watcher=$!',
  'exec 3<&-',
  'wait "$child"; status=$?',
  'kill -KILL "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** How long a stopped runtime has between TERM and KILL. */
const STOP_GRACE_MS = 3_000;
/** What is kept of the runtime's stderr for the diagnostics log. */
const TAIL_BYTES = 2048;

export interface TurnProcess {
  readonly pid: number;
  /** Resolves with the exit status (128+n for a signal) once the runtime's group is gone. */
  readonly exited: Promise<number>;
  /** The last bytes the runtime wrote to stderr. */
  stderrTail(): string;
  /** TERM to the whole group now, KILL after the grace; resolves with the exit status. */
  stop(): Promise<number>;
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // the group is gone already
  }
}

/** Starts `argv` under the watchdog, in its own process group; stdout is drained and dropped. */
export function startTurnProcess(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  promptFile: string,
): TurnProcess {
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'agentteam-turn', ...argv], {
    detached: true,
    cwd,
    env: {
      ...env,
      AGENTTEAM_TURN_PROMPT_FILE: promptFile,
      AGENTTEAM_TURN_GRACE_S: String(STOP_GRACE_MS / 1000),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? -1;
  let tail = Buffer.alloc(0);
  child.stdout.resume();
  child.stderr.on('data', (b: Buffer) => {
    tail = Buffer.concat([tail, b]);
    if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
  });
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number>((resolve) => {
    child.on('error', () => resolve(127));
    child.on('exit', (code, signal) => {
      // Whatever the runtime left in its group (a server it forked) goes with it.
      if (pid > 0) signalGroup(pid, 'SIGKILL');
      child.stdin.destroy();
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
  let stopping: Promise<number> | null = null;
  return {
    pid,
    exited,
    stderrTail: () => tail.toString('utf8'),
    stop() {
      stopping ??= (async () => {
        if (pid > 0) signalGroup(pid, 'SIGTERM');
        const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), STOP_GRACE_MS);
        timer.unref();
        const status = await exited;
        clearTimeout(timer);
        return status;
      })();
      return stopping;
    },
  };
}
