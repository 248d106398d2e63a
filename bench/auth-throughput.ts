import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './result.js';
import { meanLoad, runLoad, type LoadResult } from './procs.js';

/**
 * Runtime-auth cost: authenticated `GET {base}/catalog` at 50 connections
 * (autocannon in its own process) against a bare hono route answering the
 * same bytes, alternated in the same run; and heap per active authorization
 * with 512 leases (separate process, --expose-gc).
 */
export const name = 'auth-throughput';

const BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
const BARE = fileURLToPath(new URL('./auth-bare-server.js', import.meta.url));
const MEMORY = fileURLToPath(new URL('./auth-memory.js', import.meta.url));
const CONNECTIONS = 50;
const DURATION = Number(process.env.BENCH_DURATION ?? 8);

function firstLine(proc: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    proc.once('exit', (code) => reject(new Error(`${what} exited ${code} before its first line`)));
  });
}

async function runToEnd(
  args: string[],
  what: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  p.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((r) => p.once('exit', r));
  if (code !== 0) throw new Error(`${what} exited ${code}`);
  return out;
}

function load(url: string, tokens: string[], durationSec: number): Promise<LoadResult> {
  return runLoad({ url, tokens, connections: CONNECTIONS, durationSec });
}

const HOLD = `console.log(JSON.stringify({tokenFile:process.env.AGENTTEAM_EXEC_TOKEN_FILE,base:process.env.AGENTTEAM_EXEC_BASE_URL}));setInterval(()=>{},1e6);`;

export async function run(): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-bench-auth-'));
  const env = { ...process.env, AGENTTEAM_HOME: home };
  const procs: ChildProcess[] = [];
  let daemonPid = 0;
  try {
    const ready = JSON.parse(await runToEnd([BIN, 'daemon', 'start'], 'daemon start', env)) as {
      pid: number;
    };
    daemonPid = ready.pid;
    // 50 connections exceed one authorization's 32 in-flight slots: two runtimes of the same
    // agent (same path, so both tokens pass the binding check) share the load.
    const runtimes: { tokenFile: string; base: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const p = spawn(
        process.execPath,
        [BIN, 'run', '--server', 'bench', '--agent', 'b0', '--', process.execPath, '-e', HOLD],
        { env, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      procs.push(p);
      runtimes.push(JSON.parse(await firstLine(p, 'run')) as { tokenFile: string; base: string });
    }
    const loadTokens = runtimes.map((r) => readFileSync(r.tokenFile, 'utf8'));
    const url = `${runtimes[0]!.base}/catalog`;
    const bare = spawn(process.execPath, [BARE], { stdio: ['ignore', 'pipe', 'inherit'] });
    procs.push(bare);
    const bareUrl = (JSON.parse(await firstLine(bare, 'bare server')) as { url: string }).url;

    await load(url, loadTokens, 1);
    await load(bareUrl, [], 1);
    const authRuns: LoadResult[] = [];
    const bareRuns: LoadResult[] = [];
    for (let i = 0; i < 2; i++) {
      authRuns.push(await load(url, loadTokens, DURATION / 2));
      bareRuns.push(await load(bareUrl, [], DURATION / 2));
    }
    const auth = meanLoad(authRuns);
    const base = meanLoad(bareRuns);
    if (auth.non2xx + auth.errors > 0)
      throw new Error(`authenticated load saw ${auth.non2xx} non-2xx and ${auth.errors} errors`);
    const mem = JSON.parse(await runToEnd(['--expose-gc', MEMORY], 'memory')) as {
      leases: number;
      bytesPerAuthorization: number;
    };
    const ratio = auth.reqPerSec / Math.max(1, base.reqPerSec);
    const kb = mem.bytesPerAuthorization / 1024;
    return [
      {
        metric: `GET catalog req/s, ${CONNECTIONS} conns, authenticated`,
        value: Math.round(auth.reqPerSec),
        unit: 'req/s',
      },
      {
        metric: `bare hono GET req/s, ${CONNECTIONS} conns`,
        value: Math.round(base.reqPerSec),
        unit: 'req/s',
      },
      {
        metric: 'authenticated / bare req/s',
        value: ratio,
        unit: 'x',
        target: '>= 0.6x',
        pass: ratio >= 0.6,
      },
      { metric: 'GET catalog p99, authenticated', value: auth.p99Ms, unit: 'ms' },
      { metric: 'bare hono GET p99', value: base.p99Ms, unit: 'ms' },
      {
        metric: `memory per active authorization (${mem.leases} leases)`,
        value: kb,
        unit: 'KB',
        target: '<= 10 KB',
        pass: kb <= 10,
      },
    ];
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    if (daemonPid) {
      try {
        process.kill(daemonPid, 'SIGTERM');
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run())
    process.stdout.write(
      `${r.metric}: ${Number.isInteger(r.value) ? r.value : r.value.toFixed(2)} ${r.unit}${r.target ? ` (target ${r.target}: ${r.pass ? 'ok' : 'MISSED'})` : ''}\n`,
    );
}
