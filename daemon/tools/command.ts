import { spawn } from 'node:child_process';
import { PLACEHOLDER } from '../../catalog/tool-declaration.js';

/** More output than this is not kept: the command is killed and the call fails (it is never cut silently). */
export const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
/** How long the pipes may stay open after the command ended or was killed. */
const PIPE_GRACE_MS = 2000;

export interface CommandRun {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: string;
  readonly timeoutMs: number;
  readonly maxCaptureBytes?: number;
  readonly signal?: AbortSignal;
}

export type CommandOutcome =
  | { readonly kind: 'exit'; readonly code: number | null; readonly signal: string | null; readonly stdout: string; readonly stderr: string }
  | { readonly kind: 'timeout' | 'too_large' | 'cancelled'; readonly stdout: string; readonly stderr: string }
  | { readonly kind: 'spawn_error'; readonly message: string };

/**
 * Fills `{field}` placeholders from the call's arguments; each element stays
 * one element whatever the value holds (no shell, no splitting). Strings go
 * in as they are, other values as JSON; an element that is exactly one
 * placeholder whose value is absent is left out.
 */
export function fillArgv(argv: readonly string[], args: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const el of argv) {
    const only = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(el);
    if (only && (args[only[1]!] === undefined || args[only[1]!] === null)) continue;
    out.push(el.replace(PLACEHOLDER, (m, name: string | undefined) => {
      if (m === '{{') return '{';
      if (m === '}}') return '}';
      const v = args[name!];
      return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
    }));
  }
  return out;
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/**
 * Runs one command without a shell, as the leader of its own process group,
 * the call's arguments as JSON on stdin. At the timeout (or cancellation, or
 * too much output) the whole group is killed; when the command exits, any
 * process it left behind in its group is killed too, so nothing outlives the call.
 */
export function runCommand(run: CommandRun): Promise<CommandOutcome> {
  return new Promise((done) => {
    const max = run.maxCaptureBytes ?? MAX_CAPTURE_BYTES;
    let child;
    try {
      child = spawn(run.argv[0]!, run.argv.slice(1), { cwd: run.cwd, env: run.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      return done({ kind: 'spawn_error', message: (err as Error).message });
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let ended: 'timeout' | 'too_large' | 'cancelled' | null = null;
    let exit: { code: number | null; signal: string | null } | null = null;
    // A process that left the group (setsid) could hold the pipes open for ever:
    // once the command is over, its pipes get a short grace and are then closed.
    let grace: NodeJS.Timeout | undefined;
    const closeSoon = () => {
      grace ??= setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS);
    };
    const stop = (why: 'timeout' | 'too_large' | 'cancelled') => {
      if (ended || exit) return;
      ended = why;
      killGroup(child.pid);
      closeSoon();
    };
    const timer = setTimeout(() => stop('timeout'), run.timeoutMs);
    const onAbort = () => stop('cancelled');
    run.signal?.addEventListener('abort', onAbort, { once: true });
    const take = (into: Buffer[]) => (c: Buffer) => {
      bytes += c.length;
      if (bytes > max) return stop('too_large');
      into.push(c);
    };
    child.stdout.on('data', take(out));
    child.stderr.on('data', take(err));
    child.stdin.on('error', () => undefined); // a command that does not read its stdin
    child.stdin.end(run.stdin);
    child.on('error', (e) => {
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      done({ kind: 'spawn_error', message: e.message });
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Strays left in the group would hold the pipes open and outlive the call.
      killGroup(child.pid);
      closeSoon();
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(grace);
      run.signal?.removeEventListener('abort', onAbort);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (ended) return done({ kind: ended, stdout, stderr });
      done({ kind: 'exit', code: exit?.code ?? code, signal: exit?.signal ?? signal, stdout, stderr });
    });
  });
}
