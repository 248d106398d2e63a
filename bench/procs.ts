import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLease } from '../devkit/lease.js';
import type { Daemon } from '../devkit/daemon.js';
import { cpuUs, LOAD_CORE, onCore, pinProcess } from './pin.js';

/**
 * Child processes shared by the HTTP benchmarks: the autocannon load
 * generator (bench/load.ts) and baseline servers that print `{"url":...}` as
 * their first line. Load and servers run in their own processes so neither
 * steals the other's event loop.
 */

const LOAD = fileURLToPath(new URL('./load.js', import.meta.url));

export interface LoadConfig {
  url: string;
  /** POSTed when present; without it the load GETs. */
  body?: string;
  headers?: Record<string, string>;
  /** One per connection, round robin, as `Authorization: Bearer`. */
  tokens: string[];
  connections: number;
  durationSec: number;
  /** Requests per second over all connections (open pacing); absent = as fast as answers come. */
  rate?: number;
}

export interface LoadResult {
  reqPerSec: number;
  total: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** The server's CPU time (user + system, all threads) per request, µs; NaN when no server pid was given. */
  serverCpuUs: number;
}

/**
 * One load run. The load generator runs on its own core when pinning is on
 * (bench/pin.ts); given the server's pid, the server is pinned to the other
 * core and its CPU time over the run is divided by the requests answered.
 */
export function runLoad(cfg: LoadConfig, server?: { pid: number }): Promise<LoadResult> {
  if (server) pinProcess(server.pid);
  const before = server ? cpuUs(server.pid) : NaN;
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = [...onCore(LOAD_CORE), process.execPath, LOAD, JSON.stringify(cfg)];
    const p = spawn(cmd as string, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load exited ${code}`));
      const r = JSON.parse(out) as Omit<LoadResult, 'serverCpuUs'>;
      const cpu = server ? cpuUs(server.pid) - before : NaN;
      resolve({ ...r, serverCpuUs: cpu / Math.max(1, r.total) });
    });
  });
}

/** The field-wise mean of several load runs (alternated halves of one measurement). */
export function meanLoad(runs: readonly LoadResult[]): LoadResult {
  const avg = (f: (r: LoadResult) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  return {
    reqPerSec: avg((r) => r.reqPerSec),
    total: avg((r) => r.total),
    p50Ms: avg((r) => r.p50Ms),
    p99Ms: avg((r) => r.p99Ms),
    non2xx: avg((r) => r.non2xx),
    errors: avg((r) => r.errors),
    serverCpuUs: avg((r) => r.serverCpuUs),
  };
}

/** Starts a baseline server script and resolves with the URL from its first stdout line. */
export function startLineServer(
  script: string,
  what: string,
  args: readonly string[] = [],
): Promise<{ url: string; proc: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve({ url: (JSON.parse(out) as { url: string }).url, proc });
    });
    proc.once('exit', (code) => reject(new Error(`${what} exited ${code}`)));
  });
}

/**
 * `n` bench leases on one daemon. Each lease is pushed onto `leases` as soon as
 * it opens, so the caller's `finally` closes every one even if a later open fails.
 */
export async function openBenchLeases(
  daemon: Daemon,
  n: number,
  leases: { close(): void }[],
): Promise<{ tokens: string[]; url: string }> {
  const tokens: string[] = [];
  let url = '';
  for (let i = 0; i < n; i++) {
    const lease = await openLease(daemon, { serverId: 'local', agentId: 'bench' });
    leases.push(lease);
    tokens.push(lease.token());
    url = lease.mcpUrl;
  }
  return { tokens, url };
}

/** The audit settings of a daemon whose trail is off (its `audit.json`). */
export const AUDIT_OFF = { enabled: false } as const;

/** A fresh daemon home under the temp folder, with `audit` as its `audit.json` when given. */
export function benchHome(
  prefix: string,
  audit?: Readonly<Record<string, unknown>> | null,
): string {
  const home = mkdtempSync(join(tmpdir(), prefix));
  if (audit) writeFileSync(join(home, 'audit.json'), JSON.stringify(audit));
  return home;
}

/** User + system CPU time of a process, in ms (clock ticks of 10 ms). */
export function processCpuMs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** A memory field of /proc/<pid>/status in KB: VmRSS now, VmHWM the peak. */
export function processMemKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? NaN);
}
