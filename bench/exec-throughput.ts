import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { call, closeHttp } from '../devkit/http.js';
import { startDaemon, startRuntime } from '../devkit/daemon.js';
import { caVariants } from './ca-env.js';
import { median, type BenchResult } from './result.js';
import { NET_FLOOR_SOURCE } from './exec-net-floor.js';
import { placement } from './pin.js';
import { meanLoad, runLoad, startLineServer, type LoadResult } from './procs.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * Exec request path cost, two ways, each against a baseline in the same run:
 * - authenticated `task get` over HTTP at 8 and 50 connections (autocannon in
 *   its own process) vs a bare hono route that only parses JSON: req/s and
 *   the server's CPU time per request, pinned when possible (bench/pin.ts);
 * - the whole `agentteam exec task get` process against a running daemon vs
 *   a bare `node:net` script doing the same exchange and `node -e 0`,
 *   interleaved so machine load hits all alike, with and without
 *   NODE_EXTRA_CA_CERTS (see cliProcessRows).
 */
export const name = 'exec-throughput';

const BARE = fileURLToPath(new URL('./exec-bare-server.js', import.meta.url));
const CONNECTIONS = 50;
/** The connection counts measured, each in its own alternating rounds. */
const LOADS = [8, 50] as const;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
/** The server's CPU per authenticated `task get` against the bare route's, at most. */
const CPU_TARGET = 2;

/** Throughput and the server's CPU per request, ours against the bare route, at one connection count. */
function requestRows(exec: LoadResult, base: LoadResult, connections: number): BenchResult[] {
  const at = `${connections} conns`;
  const cpu = exec.serverCpuUs / base.serverCpuUs;
  return [
    {
      metric: `task get req/s, ${at}, authenticated`,
      value: Math.round(exec.reqPerSec),
      unit: 'req/s',
    },
    { metric: `bare hono route req/s, ${at}`, value: Math.round(base.reqPerSec), unit: 'req/s' },
    {
      metric: `task get / bare hono req/s, ${at}`,
      value: exec.reqPerSec / Math.max(1, base.reqPerSec),
      unit: 'x',
    },
    { metric: `task get server CPU per request, ${at}`, value: exec.serverCpuUs, unit: 'µs' },
    { metric: `bare hono server CPU per request, ${at}`, value: base.serverCpuUs, unit: 'µs' },
    {
      metric: `task get / bare hono server CPU per request, ${at}`,
      value: cpu,
      unit: 'x',
      target: `<= ${CPU_TARGET}x`,
      pass: cpu <= CPU_TARGET,
    },
    { metric: `task get p99, ${at}`, value: exec.p99Ms, unit: 'ms' },
    { metric: `bare hono p99, ${at}`, value: base.p99Ms, unit: 'ms' },
  ];
}
const RUNS = Number(process.env.BENCH_RUNS ?? 31);

function timeProcess(args: readonly string[], env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore', env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return ms;
}

/** The package's binary (package.json "bin"): the CommonJS bundle of the exec path. */
const CLI = fileURLToPath(new URL('../cli/agentteam.cjs', import.meta.url));
/** The whole process against that script's, at most. */
const FLOOR_TARGET = 1.15;

/**
 * The whole `agentteam exec task get` process against the running daemon vs
 * `node -e 0`, in each environment of bench/ca-env.ts (as given, and without
 * NODE_EXTRA_CA_CERTS when it is set). Rounds interleave all of them, and the
 * ratio is the median of per-round ratios, so machine load hits both sides
 * of a pair alike.
 */
function cliProcessRows(body: string, runtimeEnv: NodeJS.ProcessEnv): BenchResult[] {
  const variants = caVariants({ ...process.env, ...runtimeEnv });
  const cmd = [CLI, 'exec', 'task', 'get', body];
  const floorCmd = ['-e', NET_FLOOR_SOURCE, 'task', 'get', body];
  const cli = variants.map(() => [] as number[]);
  const floor = variants.map(() => [] as number[]);
  const node = variants.map(() => [] as number[]);
  for (let i = 0; i < RUNS + 3; i++) {
    variants.forEach((v, vi) => {
      // The three in a rotating order, so none always runs right after another's exit.
      const times = [0, 1, 2]
        .map((k) => (k + i) % 3)
        .map((k) => ({
          k,
          ms: timeProcess(k === 0 ? cmd : k === 1 ? floorCmd : ['-e', '0'], v.env),
        }));
      if (i < 3) return;
      for (const t of times) (t.k === 0 ? cli : t.k === 1 ? floor : node)[vi]!.push(t.ms);
    });
  }
  return variants.flatMap((v, vi) => {
    const ratio = median(cli[vi]!.map((c, i) => c / (node[vi]![i] ?? NaN)));
    const overFloor = median(cli[vi]!.map((c, i) => c / (floor[vi]![i] ?? NaN)));
    return [
      {
        metric: `[${v.label}] agentteam exec task get (median of ${RUNS})`,
        value: median(cli[vi]!),
        unit: 'ms',
      },
      {
        metric: `[${v.label}] bare node:net script, same exchange (median of ${RUNS})`,
        value: median(floor[vi]!),
        unit: 'ms',
      },
      {
        metric: `[${v.label}] node -e 0 (median of ${RUNS})`,
        value: median(node[vi]!),
        unit: 'ms',
      },
      {
        metric: `[${v.label}] exec task get process / bare node:net script`,
        value: overFloor,
        unit: 'x',
        target: `<= ${FLOOR_TARGET}x`,
        pass: overFloor <= FLOOR_TARGET,
      },
      { metric: `[${v.label}] exec task get process / node -e 0`, value: ratio, unit: 'x' },
    ];
  });
}

export async function run(): Promise<BenchResult[]> {
  const daemon = await startDaemon();
  const bare = await startLineServer(BARE, 'bare server');
  try {
    // Two authorizations: one may hold only 32 requests in flight, the load keeps 50.
    const runtimes = [
      await startRuntime(daemon, { server: 'bench', agent: 'b1' }),
      await startRuntime(daemon, { server: 'bench', agent: 'b1' }),
    ];
    const created = await call(runtimes[0]!, 'task', 'create', { title: 'bench' });
    const body = JSON.stringify({ id: created.json.data.task.id as string });
    const check = await call(runtimes[0]!, 'task', 'get', JSON.parse(body));
    if (check.status !== 200) throw new Error(`task get failed: ${check.text}`);
    const url = `${runtimes[0]!.base}/task/get`;
    const tokens = runtimes.map((r) => r.token());

    const ours = (connections: number, durationSec: number) =>
      runLoad({ url, body, headers: JSON_HEADERS, tokens, connections, durationSec }, daemon);
    const floor = (connections: number, durationSec: number) =>
      runLoad(
        { url: bare.url, body, headers: JSON_HEADERS, tokens: [], connections, durationSec },
        { pid: bare.proc.pid! },
      );
    await ours(CONNECTIONS, 1);
    await floor(CONNECTIONS, 1);
    // Alternating rounds, the side that goes first alternating too, so drift on the machine hits both alike.
    const httpRows: BenchResult[] = [];
    for (const connections of LOADS) {
      const execRuns: LoadResult[] = [];
      const bareRuns: LoadResult[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const slice = DURATION / ROUNDS;
        if (i % 2 === 0) {
          execRuns.push(await ours(connections, slice));
          bareRuns.push(await floor(connections, slice));
        } else {
          bareRuns.push(await floor(connections, slice));
          execRuns.push(await ours(connections, slice));
        }
      }
      const exec = meanLoad(execRuns);
      const base = meanLoad(bareRuns);
      if (exec.non2xx + exec.errors > 0)
        throw new Error(`exec load saw ${exec.non2xx} non-2xx and ${exec.errors} errors`);
      httpRows.push(...requestRows(exec, base, connections));
    }
    const cliRows = cliProcessRows(body, runtimes[0]!.env);
    await Promise.all(runtimes.map((r) => r.close()));
    return [{ metric: placement(), value: ROUNDS, unit: 'rounds' }, ...httpRows, ...cliRows];
  } finally {
    bare.proc.kill('SIGTERM');
    closeHttp();
    await daemon.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run())
    process.stdout.write(
      `${r.metric}: ${typeof r.value === 'number' && !Number.isInteger(r.value) ? r.value.toFixed(2) : r.value} ${r.unit}${r.target ? ` (target ${r.target}: ${r.pass ? 'ok' : 'MISSED'})` : ''}\n`,
    );
}
