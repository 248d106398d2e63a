import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';

/** The built CLI the tests drive. */
export const BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url));

/** A temp AGENTTEAM_HOME removed after the test, with every pid started in it killed. */
export function tempHome(t: TestContext): { home: string; env: NodeJS.ProcessEnv; track: (pid: number) => void } {
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

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion. */
export function cli(args: string[], env: NodeJS.ProcessEnv, opts: SpawnOptions = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Spawns the CLI without waiting (for `run`), as the leader of its own process
 * group so cleanup can kill it together with the command it started.
 */
export function cliSpawn(args: string[], env: NodeJS.ProcessEnv, track: (pid: number) => void): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  if (child.pid) track(-child.pid);
  return child;
}

/** `daemon start` (detached); returns the ready line. */
export async function startDaemonCli(env: NodeJS.ProcessEnv, track: (pid: number) => void, extra: string[] = []): Promise<{ url: string; pid: number }> {
  const r = await cli(['daemon', 'start', ...extra], env);
  if (r.code !== 0) throw new Error(`daemon start failed (${r.code}): ${r.stderr}`);
  const ready = JSON.parse(r.stdout.trim()) as { url: string; pid: number };
  track(ready.pid);
  return ready;
}

export interface HttpResult {
  status: number;
  body: string;
}

export function httpGet(url: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Running (a zombie awaiting its reaper counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

export async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, step = 10): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, step));
  }
  return cond();
}
