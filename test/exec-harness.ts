import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Real-process helpers for the Exec end-to-end tests and the bench: a daemon
 * started through the built CLI in a temp home on an ephemeral port, a
 * runtime started with `agentteam run`, and a raw node:http client.
 */

export const BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
const execFileP = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(home: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; bin?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [opts.bin ?? BIN, ...args], { env: { ...process.env, AGENTTEAM_HOME: home, ...opts.env }, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

export interface Daemon {
  readonly home: string;
  /** The CLI that started it (and starts its runtimes): this build's unless `startDaemon` was given another. */
  readonly bin?: string;
  url: string;
  pid: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  kill9(): void;
  close(): Promise<void>;
}

/**
 * A daemon for a fresh temp home (or `home`); `close()` stops it and removes
 * the home. `extra` adds `daemon start` arguments and environment (a shared store),
 * or names another build's CLI to run (bench/regression.ts: a baseline checkout).
 */
export async function startDaemon(
  home = mkdtempSync(join(tmpdir(), 'agentteam-exec-')),
  extra: { args?: string[]; env?: NodeJS.ProcessEnv; bin?: string } = {},
): Promise<Daemon> {
  const bin = extra.bin ?? BIN;
  const d: Daemon = {
    home,
    bin,
    url: '',
    pid: 0,
    async start() {
      const { stdout } = await execFileP(process.execPath, [bin, 'daemon', 'start', ...(extra.args ?? [])], {
        env: { ...process.env, AGENTTEAM_HOME: home, ...extra.env }, timeout: 20_000,
      });
      const info = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { url: string; pid: number };
      d.url = info.url;
      d.pid = info.pid;
    },
    async stop() {
      await cli(home, ['daemon', 'stop'], { bin });
    },
    kill9() {
      try {
        process.kill(d.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
    async close() {
      await d.stop();
      d.kill9();
      rmSync(home, { recursive: true, force: true });
    },
  };
  await d.start();
  return d;
}

export interface Runtime {
  readonly env: Record<string, string>;
  readonly base: string;
  token(): string;
  close(): Promise<void>;
}

// Prints its environment as one JSON line, then idles until killed.
const CHILD = 'process.stdout.write(JSON.stringify(process.env)+"\\n");setInterval(()=>{},1e6)';

/** A runtime under `agentteam run` whose credential the test uses directly. */
export async function startRuntime(d: Daemon, server = 's1', agent = 'a1'): Promise<Runtime> {
  const proc = spawn(process.execPath, [d.bin ?? BIN, 'run', '--server', server, '--agent', agent, '--', process.execPath, '-e', CHILD], {
    env: { ...process.env, AGENTTEAM_HOME: d.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const env = JSON.parse(await firstLine(proc)) as Record<string, string>;
  return {
    env,
    base: env.AGENTTEAM_EXEC_BASE_URL ?? '',
    token: () => readFileSync(env.AGENTTEAM_EXEC_TOKEN_FILE ?? '', 'utf8').trim(),
    async close() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}

/** The first stdout line of a starting `agentteam run` (its child's report), or its stderr if it exits first. */
export function firstLine(proc: ChildProcess, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`run did not start: ${err}`)), timeoutMs);
    proc.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    proc.stdout?.on('data', (c: Buffer) => {
      buf += c.toString();
      const i = buf.indexOf('\n');
      if (i >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, i));
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`run exited with ${code}: ${err}`));
    });
  });
}

export interface HttpResult {
  status: number;
  text: string;
  json: any;
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

/** One POST with a raw body (string or bytes); `headers` may override Content-Length etc. */
export function post(url: string, token: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: keepAlive,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Calls an action with a JSON input through the runtime's base URL. */
export function call(rt: Runtime, domain: string, action: string, input: unknown): Promise<HttpResult> {
  return post(`${rt.base}/${domain}/${action}`, rt.token(), JSON.stringify(input));
}

export function closeHttp(): void {
  keepAlive.destroy();
}
