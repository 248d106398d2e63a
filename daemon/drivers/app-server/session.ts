import { spawn, type ChildProcess } from 'node:child_process';
import { ExecError } from '../../errors/exec-error.js';
import { type ConversationOptions, converse, type Outcome } from './conversation.js';

interface SessionOptions extends ConversationOptions {
  /** The executable and its arguments (`codex app-server ...`); agentteam's `-c` overrides go right after the executable. */
  readonly command: readonly string[];
  readonly overrides: readonly string[];
  readonly env: Record<string, string>;
}

const STOP_GRACE_MS = 3_000;

/**
 * One run of `codex app-server` for `agentteam run`: the daemon spawns the
 * command in its own process group, holds one conversation with it
 * (conversation.ts), then ends it and emits how the run ended; resolves
 * with the final status.
 */
export async function runAppServerSession(o: SessionOptions): Promise<string> {
  const [bin, ...rest] = o.command;
  if (!bin) throw new ExecError('invalid_request', 'command is empty');
  const child: ChildProcess = spawn(bin, [...o.overrides, ...rest], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: o.env,
    ...(o.cwd ? { cwd: o.cwd } : {}),
    detached: true,
  });
  let stderrTail = '';
  child.stderr!.on(
    'data',
    (c: Buffer) => (stderrTail = (stderrTail + c.toString('utf8')).slice(-4000)),
  );
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<Outcome>((resolve) => {
    child.on('error', (err) =>
      resolve({ status: 'failed', error: `cannot start ${bin}: ${err.message}` }),
    );
    child.on('exit', (code, signal) => {
      resolve({
        status: 'failed',
        error: `the app server exited (${signal ?? `status ${code}`}): ${stderrTail.trim().split('\n').slice(-3).join(' / ')}`,
      });
    });
  });
  const result = await converse(o, { input: child.stdin!, output: child.stdout!, exited });
  await stop(child);
  o.emit({ event: 'done', ...result });
  return result.status;
}

/** Ends the app server: its stdin first (it exits at EOF), then its process group. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.stdin?.end();
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      child.kill(sig);
    }
  };
  const term = setTimeout(() => kill('SIGTERM'), 500);
  const hard = setTimeout(() => kill('SIGKILL'), STOP_GRACE_MS);
  await gone;
  clearTimeout(term);
  clearTimeout(hard);
}
