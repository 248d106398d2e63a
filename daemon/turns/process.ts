import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';

/**
 * The watchdog every turn's runtime runs under: a POSIX shell that leads
 * its own process group, starts the runtime, and holds (on descriptor 3)
 * the read end of a pipe whose write end only the daemon has. When the
 * daemon goes away, even by kill -9, the pipe reaches end of file and the
 * watchdog stops the whole group (TERM, then KILL after the grace), so no
 * runtime outlives the daemon that started it.
 *
 * A prompt runtime reads the prompt file on stdin, and the watchdog's own
 * stdin is the daemon's pipe. A JSON-RPC runtime (`codex app-server`) keeps
 * the daemon's stdin and stdout pipes for its protocol, and the daemon's
 * pipe is a fourth descriptor. A shell gives a background command
 * /dev/null for stdin, so the RPC pipe is passed on as descriptor 4.
 */
function watchdog(rpc: boolean): string {
  return [
    rpc ? 'exec 4<&0' : 'exec 3<&0',
    rpc ? '"$@" <&4 3<&- 4<&- &' : '"$@" <"$AGENTTEAM_TURN_PROMPT_FILE" 3<&- &',
    'child=$!',
    `( trap '' TERM; while read -r _ <&3; do :; done; kill -TERM 0 2>/dev/null; sleep "$AGENTTEAM_TURN_GRACE_S"; kill -KILL 0 2>/dev/null ) 4<&- &`,
    'watcher=$!',
    'exec 3<&- 4<&-',
    'wait "$child"; status=$?',
    'kill -KILL "$watcher" 2>/dev/null',
    'exit "$status"',
  ].join('\n');
}

/** How long a stopped runtime has between TERM and KILL. */
const STOP_GRACE_MS = 3_000;
/** What is kept of the runtime's stderr for the diagnostics log. */
const TAIL_BYTES = 2048;

export interface TurnProcess {
  readonly pid: number;
  /** A JSON-RPC runtime's protocol: its stdin and stdout (null for a prompt runtime). */
  readonly rpc: { readonly input: Writable; readonly output: Readable } | null;
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

/**
 * Starts `argv` under the watchdog, in its own process group. With a prompt
 * file the runtime reads it on stdin and its stdout is drained and dropped,
 * each chunk shown first to `stdout` when given (a runtime that names its
 * session there); with `null` the runtime speaks JSON-RPC on its stdin and
 * stdout (`rpc`).
 */
export function startTurnProcess(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  promptFile: string | null,
  stdout?: (chunk: Buffer) => void,
): TurnProcess {
  const rpc = promptFile === null;
  const child = spawn('/bin/sh', ['-c', watchdog(rpc), 'agentteam-turn', ...argv], {
    detached: true,
    cwd,
    env: {
      ...env,
      ...(promptFile ? { AGENTTEAM_TURN_PROMPT_FILE: promptFile } : {}),
      AGENTTEAM_TURN_GRACE_S: String(STOP_GRACE_MS / 1000),
    },
    stdio: ['pipe', 'pipe', 'pipe', ...(rpc ? (['pipe'] as const) : [])],
  });
  const pid = child.pid ?? -1;
  let tail = Buffer.alloc(0);
  if (!rpc && stdout) child.stdout.on('data', stdout);
  else if (!rpc) child.stdout.resume();
  child.stderr.on('data', (b: Buffer) => {
    tail = Buffer.concat([tail, b]);
    if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
  });
  child.stdin.on('error', () => undefined);
  (child.stdio[3] as Writable | null | undefined)?.on('error', () => undefined);
  const exited = new Promise<number>((resolve) => {
    child.on('error', () => resolve(127));
    child.on('exit', (code, signal) => {
      // Whatever the runtime left in its group (a server it forked) goes with it.
      if (pid > 0) signalGroup(pid, 'SIGKILL');
      child.stdin.destroy();
      (child.stdio[3] as Writable | null | undefined)?.destroy();
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
  let stopping: Promise<number> | null = null;
  return {
    pid,
    rpc: rpc ? { input: child.stdin, output: child.stdout } : null,
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
