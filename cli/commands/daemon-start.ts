import { spawn, type ChildProcess, type IOType } from 'node:child_process';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { resolveHome } from '../../lib/home.js';
import { readDaemonInfo } from '../daemon-client.js';
import { parseStoreUrl, StoreUrlError } from '../../lib/store-url.js';
import { refuse } from '../refusal.js';
import { visible } from '../terminal-text.js';
import { escapeJsonText, jsonText } from '../json-text.js';
import { boundErrorBody } from '../../catalog/error-limits.js';
import type { ErrorCode } from '../../catalog/errors.js';

const READY_TIMEOUT_MS = 20_000;
/** How long a daemon that is being abandoned gets to exit after SIGTERM, then after SIGKILL. */
const KILL_GRACE_MS = 2_000;

/** The daemon entry is spawned, never imported: the CLI stays free of daemon code. */
const DAEMON_MAIN = fileURLToPath(new URL('../../daemon/main.js', import.meta.url));

/**
 * `agentteam daemon start [--listen HOST:PORT] [--foreground] [--allow-remote [--allow-host NAME]...] [--store URL]`.
 * The store URL (it carries the database password) reaches the daemon
 * through a pipe on its fd 3, never on its command line (readable by every
 * user of the machine) nor in its environment (readable in
 * /proc/PID/environ by every process of the user, agents included).
 * Prints the daemon's one ready line. Detached by default: returns once the
 * line is relayed, leaving the daemon running in its own session.
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  const running = readDaemonInfo(home);
  if (running)
    return refuse(
      'daemon start',
      'already_exists',
      `daemon already running for ${home} (pid ${running.pid}) at ${running.url}`,
    );
  const env = { ...process.env };
  const store = typeof opts.store === 'string' ? opts.store : env.AGENTTEAM_STORE_URL;
  delete env.AGENTTEAM_STORE_URL;
  if (store !== undefined && store !== '') {
    try {
      parseStoreUrl(store);
    } catch (err) {
      if (!(err instanceof StoreUrlError)) throw err;
      return refuse('daemon start', 'usage', err.message);
    }
  }
  const argv = [DAEMON_MAIN];
  const secret = store !== undefined && store !== '' ? store : null;
  if (secret !== null) argv.push('--store-fd', '3');
  if (typeof opts.listen === 'string') argv.push('--listen', opts.listen);
  if (opts.allowRemote) argv.push('--allow-remote');
  for (const h of Array.isArray(opts.allowHost) ? (opts.allowHost as string[]) : [])
    argv.push('--allow-host', h);
  if (opts.foreground) return foreground(argv, env, secret);
  argv.push('--detached');
  return detached(argv, env, secret);
}

/** Foreground: the daemon shares our stdio; signals are passed on, its exit status is ours. */
/** The daemon's stdio, plus fd 3 as a pipe carrying the store URL when there is one. */
function withStoreFd(stdio: IOType[], secret: string | null): IOType[] {
  return secret === null ? stdio : [...stdio, 'pipe'];
}

function sendStore(child: ChildProcess, secret: string | null): void {
  if (secret === null) return;
  const pipe = child.stdio[3] as Writable;
  pipe.on('error', () => undefined); // the daemon exited before reading: its own error says why
  pipe.end(secret);
}

async function foreground(
  argv: string[],
  env: NodeJS.ProcessEnv,
  secret: string | null,
): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, argv, {
    stdio: withStoreFd(['inherit', 'inherit', 'inherit'], secret),
    env,
  });
  sendStore(child, secret);
  const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, forward(sig));
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + signalNumber(signal) : 1)));
  });
}

function signalNumber(sig: NodeJS.Signals): number {
  const table: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return table[sig] ?? 0;
}

async function detached(
  argv: string[],
  env: NodeJS.ProcessEnv,
  secret: string | null,
): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, argv, {
    detached: true,
    stdio: withStoreFd(['ignore', 'pipe', 'pipe'], secret),
    env,
  });
  sendStore(child, secret);
  let out = '';
  let err = '';
  let exited = child.exitCode !== null || child.signalCode !== null;
  const gone = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      r();
    }),
  );
  return new Promise((resolve) => {
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const [sig, fn] of handlers) process.off(sig, fn);
      child.stdout!.destroy();
      child.stderr!.destroy();
      child.unref();
      resolve(code);
    };
    /**
     * A daemon that is not ready is not left behind: SIGTERM, and SIGKILL if
     * it has not exited after a grace period (it may be stuck), before we return.
     */
    const abandon = async (why: 'timeout' | 'cancelled', message: string, code: number) => {
      if (done) return;
      refuse('daemon start', why, message);
      if (!exited) {
        child.kill('SIGTERM');
        const grace = new Promise((r) => setTimeout(r, KILL_GRACE_MS).unref());
        await Promise.race([gone, grace]);
        if (!exited) {
          child.kill('SIGKILL');
          await Promise.race([gone, new Promise((r) => setTimeout(r, KILL_GRACE_MS).unref())]);
        }
      }
      finish(code);
    };
    const timer = setTimeout(
      () => void abandon('timeout', 'the daemon did not become ready in time; stopped it', 1),
      READY_TIMEOUT_MS,
    );
    // Interrupted while waiting for the ready line: the daemon, in its own session, would not hear it.
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => {
      const fn = () =>
        void abandon(
          'cancelled',
          `interrupted (${sig}) before the daemon was ready; stopped it`,
          128 + signalNumber(sig),
        );
      process.on(sig, fn);
      return [sig, fn] as const;
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const nl = out.indexOf('\n');
      if (nl >= 0 && !done) {
        process.stdout.write(`${escapeJsonText(out.slice(0, nl))}\n`);
        finish(0);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      if (done) return;
      // Give the pipes a moment to deliver the daemon's last words.
      setImmediate(() => {
        if (done) return;
        const status = code && code !== 0 ? code : 1;
        const line = err.trim().split('\n').pop() || `the daemon exited with status ${code}`;
        process.stderr.write(`${visible(line)}\n`);
        process.stdout.write(
          `${jsonText({ ok: false, error: boundErrorBody({ code: exitedCode(status, line), message: line.replace(/^agentteam: /, '') }) })}\n`,
        );
        finish(status);
      });
    });
  });
}

/**
 * The error code for a daemon that exited before it was ready, chosen so its
 * exit status (the daemon's own, passed on) is the code's: 2 an unusable
 * home or settings, a lock held by another daemon, anything else internal.
 */
function exitedCode(status: number, line: string): ErrorCode {
  if (status === 2) return 'usage';
  return status === 1 && /already running/.test(line) ? 'already_exists' : 'internal';
}
