import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PLACEHOLDER } from '../../catalog/tool-declaration.js';
import { outputBudget, type OutputBudget } from './output-budget.js';
import { CALL_MARKER_VAR, killGroup, killMarked, newCallMarker } from './process-tree.js';

/** More output than this is not kept: the command is killed and the call fails (it is never cut silently). */
export const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
/** How long the pipes may stay open after the command ended or was killed. */
const PIPE_GRACE_MS = 2000;

interface CommandRun {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: string;
  readonly timeoutMs: number;
  readonly maxCaptureBytes?: number;
  readonly signal?: AbortSignal;
  /** The daemon-wide budget of buffered output (default: the process's one). */
  readonly budget?: OutputBudget;
}

export type CommandOutcome =
  | {
      readonly kind: 'exit';
      readonly code: number | null;
      readonly signal: string | null;
      readonly stdout: string;
      readonly stderr: string;
    }
  | {
      readonly kind: 'timeout' | 'too_large' | 'cancelled';
      readonly stdout: string;
      readonly stderr: string;
    }
  | { readonly kind: 'spawn_error'; readonly message: string };

/**
 * Fills `{field}` placeholders from the call's arguments; each element stays
 * one element whatever the value holds (no shell, no splitting). Strings go
 * in as they are, other values as JSON; an element that is exactly one
 * placeholder whose value is absent is left out.
 */
export function fillArgv(
  argv: readonly string[],
  args: Readonly<Record<string, unknown>>,
): string[] {
  const out: string[] = [];
  for (const el of argv) {
    const only = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(el);
    if (only && (args[only[1]!] === undefined || args[only[1]!] === null)) continue;
    out.push(
      el.replace(PLACEHOLDER, (m, name: string | undefined) => {
        if (m === '{{') return '{';
        if (m === '}}') return '}';
        const v = args[name!];
        return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
      }),
    );
  }
  return out;
}

/**
 * Runs one command without a shell, as the leader of its own session and
 * process group, the call's arguments as JSON on stdin. At the timeout (or
 * cancellation, or too much output) the whole group is killed, and so is
 * every process carrying the call's marker wherever it went (process-tree.ts);
 * when the command exits, whatever it left behind is killed the same way.
 * The call settles only after that sweep: nothing outlives the call. Output
 * is held against the daemon-wide budget (output-budget.ts: past it the
 * pipes stop being read, so the command waits) as well as the per-call
 * limit; a failed call reports its stderr only.
 */
export function runCommand(run: CommandRun): Promise<CommandOutcome> {
  return new Promise((done) => {
    const max = run.maxCaptureBytes ?? MAX_CAPTURE_BYTES;
    const share = (run.budget ?? outputBudget).join();
    const marker = newCallMarker();
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(run.argv[0]!, run.argv.slice(1), {
        cwd: run.cwd,
        env: { ...run.env, [CALL_MARKER_VAR]: marker },
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      share.leave();
      return done({ kind: 'spawn_error', message: (err as Error).message });
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let ended: 'timeout' | 'too_large' | 'cancelled' | null = null;
    let exit: { code: number | null; signal: string | null } | null = null;
    // Sweeps for the call's processes run one after another, off the event loop.
    let sweep: Promise<unknown> = Promise.resolve();
    const sweepNow = () => (sweep = sweep.then(() => killMarked(marker)).catch(() => 0));
    // A process that left the group and cleared its marker could hold the pipes open for ever:
    // once the command is over, its pipes get a short grace and are then closed.
    let grace: NodeJS.Timeout | undefined;
    // Streams stopped for the budget: their pipes still hold output that will be read once there is room.
    let waitingForRoom = 0;
    const closeSoon = () => {
      grace ??= setTimeout(() => {
        grace = undefined;
        if (waitingForRoom > 0 && !ended) return closeSoon();
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS);
    };
    const stop = (why: 'timeout' | 'too_large' | 'cancelled') => {
      if (ended || exit) return;
      ended = why;
      // Output no longer matters: drain whatever waits in the pipes so they can close.
      child.stdout.resume();
      child.stderr.resume();
      killGroup(child.pid);
      void sweepNow();
      closeSoon();
    };
    const timer = setTimeout(() => stop('timeout'), run.timeoutMs);
    const onAbort = () => stop('cancelled');
    run.signal?.addEventListener('abort', onAbort, { once: true });
    const take = (stream: NodeJS.ReadableStream, into: Buffer[]) => (c: Buffer) => {
      if (ended) return;
      if (bytes + c.length > max) return stop('too_large');
      bytes += c.length;
      into.push(c);
      // The daemon-wide budget is full: stop reading, so the command blocks on its pipe until there is room.
      if (!share.take(c.length)) {
        stream.pause();
        waitingForRoom++;
        share.whenRoom(() => {
          waitingForRoom--;
          stream.resume();
        });
      }
    };
    child.stdout.on('data', take(child.stdout, out));
    child.stderr.on('data', take(child.stderr, err));
    child.stdin.on('error', () => undefined); // a command that does not read its stdin
    child.stdin.end(run.stdin);
    child.on('error', (e) => {
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      share.leave();
      done({ kind: 'spawn_error', message: e.message });
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Strays left in the group, or gone elsewhere, would hold the pipes open and outlive the call.
      killGroup(child.pid);
      void sweepNow();
      closeSoon();
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(grace);
      run.signal?.removeEventListener('abort', onAbort);
      // A call that failed needs only stderr (its tail is quoted): its stdout is not copied again.
      const stdout = ended ? '' : Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      out.length = 0;
      err.length = 0;
      share.leave();
      const outcome: CommandOutcome = ended
        ? { kind: ended, stdout, stderr }
        : {
            kind: 'exit',
            code: exit?.code ?? code,
            signal: exit?.signal ?? signal,
            stdout,
            stderr,
          };
      // One last sweep (a process may have forked while the pipes drained), then the answer.
      void sweepNow().then(() => done(outcome));
    });
  });
}
