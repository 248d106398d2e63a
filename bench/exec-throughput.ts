import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { call, closeHttp, startDaemon, startRuntime, BIN } from '../test/exec-harness.js';
import { median, type BenchResult } from './result.js';

/**
 * Exec request path cost, two ways, each against a baseline in the same run:
 * - authenticated `task get` over HTTP at 50 connections (autocannon in its
 *   own process) vs a bare hono route that only parses JSON;
 * - the whole `agentteam exec task get` process against a running daemon vs
 *   `node -e 0`, interleaved so machine load hits both alike.
 */
export const name = 'exec-throughput';

const LOAD = fileURLToPath(new URL('./mcp-load.js', import.meta.url));
const BARE = fileURLToPath(new URL('./exec-bare-server.js', import.meta.url));
const CONNECTIONS = 50;
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const RUNS = Number(process.env.BENCH_RUNS ?? 31);

interface LoadResult {
  reqPerSec: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

function load(url: string, body: string, tokens: string[], durationSec: number): Promise<LoadResult> {
  const cfg = { url, body, headers: { 'content-type': 'application/json' }, tokens, connections: CONNECTIONS, durationSec };
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [LOAD, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load exited ${code}`))));
  });
}

function mean(runs: LoadResult[]): LoadResult {
  const avg = (f: (r: LoadResult) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  return { reqPerSec: avg((r) => r.reqPerSec), p99Ms: avg((r) => r.p99Ms), non2xx: avg((r) => r.non2xx), errors: avg((r) => r.errors) };
}

function startBare(): Promise<{ url: string; proc: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BARE], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve({ url: (JSON.parse(out) as { url: string }).url, proc });
    });
    proc.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
}

function timeProcess(args: readonly string[], env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore', env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return ms;
}

export async function run(): Promise<BenchResult[]> {
  const daemon = await startDaemon();
  const bare = await startBare();
  try {
    // Two authorizations: one may hold only 32 requests in flight, the load keeps 50.
    const runtimes = [await startRuntime(daemon, 'bench', 'b1'), await startRuntime(daemon, 'bench', 'b1')];
    const created = await call(runtimes[0]!, 'task', 'create', { title: 'bench' });
    const body = JSON.stringify({ id: created.json.data.task.id as string });
    const check = await call(runtimes[0]!, 'task', 'get', JSON.parse(body));
    if (check.status !== 200) throw new Error(`task get failed: ${check.text}`);
    const url = `${runtimes[0]!.base}/task/get`;
    const tokens = runtimes.map((r) => r.token());

    await load(url, body, tokens, 1);
    await load(bare.url, body, [], 1);
    // Alternate halves so that load from other work on the machine hits both sides alike.
    const execRuns: LoadResult[] = [];
    const bareRuns: LoadResult[] = [];
    for (let i = 0; i < 2; i++) {
      execRuns.push(await load(url, body, tokens, DURATION / 2));
      bareRuns.push(await load(bare.url, body, [], DURATION / 2));
    }
    const exec = mean(execRuns);
    const base = mean(bareRuns);
    if (exec.non2xx + exec.errors > 0) throw new Error(`exec load saw ${exec.non2xx} non-2xx and ${exec.errors} errors`);

    const env: NodeJS.ProcessEnv = { ...process.env, ...runtimes[0]!.env };
    const cmd = [BIN, 'exec', 'task', 'get', body];
    const cliTimes: number[] = [];
    const nodeTimes: number[] = [];
    for (let i = 0; i < RUNS + 3; i++) {
      const c = timeProcess(cmd, env);
      const n = timeProcess(['-e', '0'], env);
      if (i >= 3) {
        cliTimes.push(c);
        nodeTimes.push(n);
      }
    }
    await Promise.all(runtimes.map((r) => r.close()));
    const ratio = exec.reqPerSec / Math.max(1, base.reqPerSec);
    const cli = median(cliTimes);
    const node = median(nodeTimes);
    return [
      { metric: `task get req/s, ${CONNECTIONS} conns, authenticated`, value: Math.round(exec.reqPerSec), unit: 'req/s' },
      { metric: `bare hono route req/s, ${CONNECTIONS} conns`, value: Math.round(base.reqPerSec), unit: 'req/s' },
      { metric: 'task get / bare hono req/s', value: ratio, unit: 'x', target: '>= 0.6x', pass: ratio >= 0.6 },
      { metric: 'task get p99', value: exec.p99Ms, unit: 'ms', target: '<= 5 ms', pass: exec.p99Ms <= 5 },
      { metric: 'bare hono p99', value: base.p99Ms, unit: 'ms' },
      { metric: `agentteam exec task get (median of ${RUNS})`, value: cli, unit: 'ms' },
      { metric: `node -e 0 (median of ${RUNS})`, value: node, unit: 'ms' },
      { metric: 'exec task get process / node -e 0', value: cli / node, unit: 'x', target: '<= 1.3x', pass: cli / node <= 1.3 },
    ];
  } finally {
    bare.proc.kill('SIGTERM');
    closeHttp();
    await daemon.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run()) process.stdout.write(`${r.metric}: ${typeof r.value === 'number' && !Number.isInteger(r.value) ? r.value.toFixed(2) : r.value} ${r.unit}${r.target ? ` (target ${r.target}: ${r.pass ? 'ok' : 'MISSED'})` : ''}\n`);
}
