import { spawn, execFile } from 'node:child_process';
import { firstLine } from './exec-harness.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Real-process helpers for the MCP tests and bench: a daemon started with
 * the built CLI on an ephemeral port in a temp home, and runtimes started
 * with `agentteam run`. Everything is torn down by `close()`.
 */

export const BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
const run = promisify(execFile);

export interface Daemon {
  readonly home: string;
  readonly url: string;
  readonly pid: number;
  cli(args: string[], opts?: { env?: Record<string, string> }): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export async function startDaemon(opts: { descriptorLimit?: number } = {}): Promise<Daemon> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-mcp-'));
  const env = { ...process.env, AGENTTEAM_HOME: home };
  // Under `ulimit -n N` when asked: the detached daemon inherits the limit.
  const { stdout } = opts.descriptorLimit === undefined
    ? await run(process.execPath, [BIN, 'daemon', 'start'], { env, timeout: 15_000 })
    : await run('bash', ['-c', `ulimit -n ${opts.descriptorLimit} && exec "$0" "$@"`, process.execPath, BIN, 'daemon', 'start'], { env, timeout: 20_000 });
  const info = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { url: string; pid: number };
  const cli: Daemon['cli'] = async (args, o = {}) => {
    try {
      const r = await run(process.execPath, [BIN, ...args], { env: { ...env, ...o.env }, timeout: 15_000 });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };
  return {
    home,
    url: info.url,
    pid: info.pid,
    cli,
    async close() {
      await cli(['daemon', 'stop']);
      try {
        process.kill(info.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** What the child under `agentteam run` saw. */
export interface Runtime {
  readonly env: Record<string, string>;
  readonly argv: string[];
  readonly mcpUrl: string;
  token(): string;
  close(): Promise<void>;
}

// Prints its environment and argv as one JSON line, then idles until killed.
const CHILD = 'process.stdout.write(JSON.stringify({env:process.env,argv:process.argv.slice(1),pid:process.pid})+"\\n");setInterval(()=>{},1e6)';

/** An executable that behaves like the runtime child above, for drivers that add their own arguments. */
export function fakeRuntime(dir: string, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!${process.execPath}\n${CHILD}\n`, { mode: 0o755 });
  return path;
}

export async function startRuntime(
  d: Daemon,
  opts: { server: string; agent: string; runtime?: string; command?: string[]; env?: Record<string, string>; runArgs?: string[] },
): Promise<Runtime> {
  const args = [BIN, 'run', '--server', opts.server, '--agent', opts.agent, ...(opts.runArgs ?? [])];
  if (opts.runtime) args.push('--runtime', opts.runtime);
  args.push('--', ...(opts.command ?? [process.execPath, '-e', CHILD]));
  const proc = spawn(process.execPath, args, { env: { ...process.env, ...opts.env, AGENTTEAM_HOME: d.home }, stdio: ['ignore', 'pipe', 'pipe'] });
  const seen = await firstLine(proc, 15_000);
  const { env, argv, pid } = JSON.parse(seen) as { env: Record<string, string>; argv: string[]; pid: number };
  return {
    env,
    argv,
    mcpUrl: env.AGENTTEAM_MCP_URL ?? '',
    token: () => readFileSync(env.AGENTTEAM_EXEC_TOKEN_FILE ?? '', 'utf8').trim(),
    async close() {
      const exited = new Promise((r) => proc.once('exit', r));
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}

/**
 * Opens a runtime lease through the operator API directly (the way `run`
 * does), for fields `run` has no flag for (the primary thread id). The lease
 * lasts until `close()`.
 */
export interface LeaseData {
  authorizationId: string;
  privateDir: string;
  tokenFile: string;
  mcpUrl: string;
  env: Record<string, string>;
  args: string[];
  argsFor?: string;
  shimDir?: string;
  tokenEnv?: string;
}

export async function openLease(d: Daemon, body: Record<string, unknown>): Promise<{ token(): string; mcpUrl: string; data: LeaseData; close(): void }> {
  const opToken = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/v1/runtimes', d.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${opToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      let buf = '';
      let parsed = false;
      res.on('data', (c: Buffer) => {
        if (parsed) return; // later lines (the revocation notice) are not the lease
        buf += c.toString();
        const i = buf.indexOf('\n');
        if (i < 0) return;
        parsed = true;
        const first = JSON.parse(buf.slice(0, i)) as { ok: boolean; data: LeaseData };
        if (!first.ok) return reject(new Error(JSON.stringify(first)));
        resolve({ token: () => readFileSync(first.data.tokenFile, 'utf8').trim(), mcpUrl: first.data.mcpUrl, data: first.data, close: () => req.destroy() });
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** An operator API call with the operator token. */
export function operatorCall(d: Daemon, method: string, path: string, body?: unknown): Promise<RawResponse> {
  const opToken = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const headers: Record<string, string> = { authorization: `Bearer ${opToken}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return rawRequest(new URL(path, d.url).toString(), method, headers, body === undefined ? undefined : JSON.stringify(body));
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One raw HTTP request (node:http), for checks below the MCP client. */
export function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A JSON-RPC POST to an MCP endpoint with the usual Streamable HTTP headers. */
export function rpc(url: string, token: string, message: unknown, extra: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(url, 'POST', {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...extra,
  }, JSON.stringify(message));
}
