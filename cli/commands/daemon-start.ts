import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolveHome } from '../../lib/home.js';
import { readDaemonInfo } from '../daemon-client.js';
import { parseStoreUrl, StoreUrlError } from '../../lib/store-url.js';

const READY_TIMEOUT_MS = 20_000;

/** The daemon entry is spawned, never imported: the CLI stays free of daemon code. */
const DAEMON_MAIN = fileURLToPath(new URL('../../daemon/main.js', import.meta.url));

/**
 * `agentteam daemon start [--listen HOST:PORT] [--foreground] [--allow-remote [--allow-host NAME]...] [--store URL]`.
 * The store URL reaches the daemon in its environment (AGENTTEAM_STORE_URL),
 * never on its command line, where any user of the machine could read it.
 * Prints the daemon's one ready line. Detached by default: returns once the
 * line is relayed, leaving the daemon running in its own session.
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  const running = readDaemonInfo(home);
  if (running) {
    process.stderr.write(`agentteam: daemon already running for ${home} (pid ${running.pid}) at ${running.url}\n`);
    return 1;
  }
  const env = { ...process.env };
  if (typeof opts.store === 'string') env.AGENTTEAM_STORE_URL = opts.store;
  if (env.AGENTTEAM_STORE_URL !== undefined) {
    try {
      parseStoreUrl(env.AGENTTEAM_STORE_URL);
    } catch (err) {
      if (!(err instanceof StoreUrlError)) throw err;
      process.stderr.write(`agentteam: ${err.message}\n`);
      return 2;
    }
  }
  const argv = [DAEMON_MAIN];
  if (typeof opts.listen === 'string') argv.push('--listen', opts.listen);
  if (opts.allowRemote) argv.push('--allow-remote');
  for (const h of Array.isArray(opts.allowHost) ? (opts.allowHost as string[]) : []) argv.push('--allow-host', h);
  if (opts.foreground) return foreground(argv, env);
  argv.push('--detached');
  return detached(argv, env);
}

/** Foreground: the daemon shares our stdio; signals are passed on, its exit status is ours. */
async function foreground(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, argv, { stdio: 'inherit', env });
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

async function detached(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, argv, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  return new Promise((resolve) => {
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout.destroy();
      child.stderr.destroy();
      child.unref();
      resolve(code);
    };
    const timer = setTimeout(() => {
      process.stderr.write('agentteam: the daemon did not become ready in time\n');
      child.kill('SIGTERM');
      finish(1);
    }, READY_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        process.stdout.write(out.slice(0, nl + 1));
        finish(0);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      if (done) return;
      // Give the pipes a moment to deliver the daemon's last words.
      setImmediate(() => {
        const line = err.trim().split('\n').pop() || `agentteam: the daemon exited with status ${code}`;
        process.stderr.write(line + '\n');
        finish(code && code !== 0 ? code : 1);
      });
    });
  });
}
