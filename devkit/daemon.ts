import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import { ESM_BIN, runCli, type RunResult } from './cli.js';

/**
 * The one spawned-daemon harness: a daemon started through the built CLI in
 * a temp home on an ephemeral port, runtimes started with `agentteam run`,
 * and the CLI run against that home. `close()` tears each down.
 */

/** The CLI the daemon tests drive (the ESM entry; it loads the same bundle as the package binary). */
export const BIN = ESM_BIN;
const execFileP = promisify(execFile);
const CLI_TIMEOUT_MS = 20_000;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion with AGENTTEAM_HOME=home; `input` is its stdin. */
export async function cli(
  home: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; bin?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [opts.bin ?? BIN, ...args],
      { env: { ...process.env, AGENTTEAM_HOME: home, ...opts.env }, timeout: CLI_TIMEOUT_MS },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** A daemon the helpers can reach: spawned here, or started in process by a test. */
export interface Daemon {
  readonly home: string;
  readonly url: string;
  readonly pid: number;
  /** The CLI that started it and starts its runtimes: this build's unless `startDaemon` was given another. */
  readonly bin?: string;
  /** The CLI against this daemon's home. */
  cli(args: string[], opts?: { env?: NodeJS.ProcessEnv; input?: string }): Promise<CliResult>;
  /** Stops the daemon and removes its home. */
  close(): Promise<void>;
}

/** A daemon started through the built CLI, which a test may also stop, kill and start again. */
export interface SpawnedDaemon extends Daemon {
  url: string;
  pid: number;
  /** `daemon start` again on the same home (after stop() or kill9()). */
  start(): Promise<void>;
  stop(): Promise<void>;
  kill9(): void;
}

export interface DaemonOptions {
  /** Default: a fresh temp home. */
  readonly home?: string;
  /** Extra `daemon start` arguments (a shared store). */
  readonly args?: string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Start under `ulimit -n N`: the detached daemon inherits the limit. */
  readonly descriptorLimit?: number;
  /** Another build's CLI to run (bench/regression.ts: a baseline checkout). */
  readonly bin?: string;
}

export async function startDaemon(opts: DaemonOptions = {}): Promise<SpawnedDaemon> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'agentteam-d-'));
  const bin = opts.bin ?? BIN;
  const start = [bin, 'daemon', 'start', ...(opts.args ?? [])];
  const d: SpawnedDaemon = {
    home,
    bin,
    url: '',
    pid: 0,
    async start() {
      const env = { ...process.env, AGENTTEAM_HOME: home, ...opts.env };
      const { stdout } =
        opts.descriptorLimit === undefined
          ? await execFileP(process.execPath, start, { env, timeout: CLI_TIMEOUT_MS })
          : await execFileP(
              'bash',
              [
                '-c',
                `ulimit -n ${opts.descriptorLimit} && exec "$0" "$@"`,
                process.execPath,
                ...start,
              ],
              { env, timeout: CLI_TIMEOUT_MS },
            );
      const info = JSON.parse(stdout.trim().split('\n').pop() ?? '') as {
        url: string;
        pid: number;
      };
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
    cli: (args, o) => cli(home, args, { ...o, bin }),
    async close() {
      await d.stop();
      d.kill9();
      rmSync(home, { recursive: true, force: true });
    },
  };
  await d.start();
  return d;
}

/** What the child under `agentteam run` saw. */
export interface Runtime {
  readonly env: Record<string, string>;
  readonly argv: string[];
  /** The Exec base URL and the MCP URL it was given. */
  readonly base: string;
  readonly mcpUrl: string;
  token(): string;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  readonly server?: string;
  readonly agent?: string;
  readonly runtime?: string;
  /** The command `run` starts (default: a child that reports what it saw, then idles). */
  readonly command?: string[];
  readonly env?: Record<string, string>;
  readonly runArgs?: string[];
}

// Prints its environment and argv as one JSON line, then idles until killed.
const CHILD =
  'process.stdout.write(JSON.stringify({env:process.env,argv:process.argv.slice(1),pid:process.pid})+"\\n");setInterval(()=>{},1e6)';

/** An executable that behaves like the runtime child above, for drivers that add their own arguments. */
export function fakeRuntime(dir: string, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!${process.execPath}\n${CHILD}\n`, { mode: 0o755 });
  return path;
}

/** A runtime under `agentteam run` (server s1, agent a1 unless given) whose credential the test uses directly. */
export async function startRuntime(d: Daemon, opts: RuntimeOptions = {}): Promise<Runtime> {
  const args = [
    d.bin ?? BIN,
    'run',
    '--server',
    opts.server ?? 's1',
    '--agent',
    opts.agent ?? 'a1',
    ...(opts.runArgs ?? []),
  ];
  if (opts.runtime) args.push('--runtime', opts.runtime);
  args.push('--', ...(opts.command ?? [process.execPath, '-e', CHILD]));
  const proc = spawn(process.execPath, args, {
    env: { ...process.env, ...opts.env, AGENTTEAM_HOME: d.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { env, argv, pid } = JSON.parse(await firstLine(proc)) as {
    env: Record<string, string>;
    argv: string[];
    pid: number;
  };
  return {
    env,
    argv,
    base: env.AGENTTEAM_EXEC_BASE_URL ?? '',
    mcpUrl: env.AGENTTEAM_MCP_URL ?? '',
    token: () => readFileSync(env.AGENTTEAM_EXEC_TOKEN_FILE ?? '', 'utf8').trim(),
    async close() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
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

/** A temp AGENTTEAM_HOME removed after the test, with every pid started in it (and its daemon) killed. */
export function tempHome(t: TestContext): {
  home: string;
  env: NodeJS.ProcessEnv;
  track: (pid: number) => void;
} {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-h2-'));
  const pids = new Set<number>();
  t.after(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      const info = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as { pid: number };
      process.kill(info.pid, 'SIGKILL');
    } catch {
      // no daemon left
    }
    rmSync(home, { recursive: true, force: true });
  });
  return { home, env: { ...process.env, AGENTTEAM_HOME: home }, track: (pid) => pids.add(pid) };
}

/** Runs the CLI to completion in `env` (which names the home), with its exit signal. */
export function cliEnv(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: SpawnOptions = {},
): Promise<RunResult> {
  return runCli(args, { env, bin: BIN, spawn: opts });
}

/**
 * Spawns the CLI without waiting (for `run`), as the leader of its own process
 * group so cleanup can kill it together with the command it started.
 */
export function cliSpawn(
  args: string[],
  env: NodeJS.ProcessEnv,
  track: (pid: number) => void,
): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid) track(-child.pid);
  return child;
}

/** `daemon start` (detached) in `env`; returns the ready line and tracks the daemon's pid. */
export async function startDaemonCli(
  env: NodeJS.ProcessEnv,
  track: (pid: number) => void,
  extra: string[] = [],
): Promise<{ url: string; pid: number }> {
  const r = await cliEnv(['daemon', 'start', ...extra], env);
  if (r.code !== 0) throw new Error(`daemon start failed (${r.code}): ${r.stderr}`);
  const ready = JSON.parse(r.stdout.trim()) as { url: string; pid: number };
  track(ready.pid);
  return ready;
}
