import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { call, closeHttp } from '../devkit/http.js';
import { startDaemon, startRuntime } from '../devkit/daemon.js';
import { caVariants } from './ca-env.js';
import { median, type BenchResult } from './result.js';
import { meanLoad, runLoad, startLineServer, type LoadResult } from './procs.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * Exec request path cost, two ways, each against a baseline in the same run:
 * - authenticated `task get` over HTTP at 50 connections (autocannon in its
 *   own process) vs a bare hono route that only parses JSON;
 * - the whole `agentteam exec task get` process against a running daemon vs
 *   `node -e 0`, interleaved so machine load hits both alike, with and
 *   without NODE_EXTRA_CA_CERTS (see cliProcessRows).
 */
export const name = 'exec-throughput';

const BARE = fileURLToPath(new URL('./exec-bare-server.js', import.meta.url));
const CONNECTIONS = 50;
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
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
const CLI_TARGET = 1.3;

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
  const cli = variants.map(() => [] as number[]);
  const node = variants.map(() => [] as number[]);
  for (let i = 0; i < RUNS + 3; i++) {
    variants.forEach((v, vi) => {
      const c = timeProcess(cmd, v.env);
      const n = timeProcess(['-e', '0'], v.env);
      if (i >= 3) {
        cli[vi]!.push(c);
        node[vi]!.push(n);
      }
    });
  }
  return variants.flatMap((v, vi) => {
    const ratio = median(cli[vi]!.map((c, i) => c / (node[vi]![i] ?? NaN)));
    return [
      {
        metric: `[${v.label}] agentteam exec task get (median of ${RUNS})`,
        value: median(cli[vi]!),
        unit: 'ms',
      },
      {
        metric: `[${v.label}] node -e 0 (median of ${RUNS})`,
        value: median(node[vi]!),
        unit: 'ms',
      },
      {
        metric: `[${v.label}] exec task get process / node -e 0`,
        value: ratio,
        unit: 'x',
        target: `<= ${CLI_TARGET}x`,
        pass: ratio <= CLI_TARGET,
      },
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

    await runLoad({
      url: url,
      body,
      headers: JSON_HEADERS,
      tokens: tokens,
      connections: CONNECTIONS,
      durationSec: 1,
    });
    await runLoad({
      url: bare.url,
      body,
      headers: JSON_HEADERS,
      tokens: [],
      connections: CONNECTIONS,
      durationSec: 1,
    });
    // Alternate halves so that load from other work on the machine hits both sides alike.
    const execRuns: LoadResult[] = [];
    const bareRuns: LoadResult[] = [];
    for (let i = 0; i < 2; i++) {
      execRuns.push(
        await runLoad({
          url: url,
          body,
          headers: JSON_HEADERS,
          tokens: tokens,
          connections: CONNECTIONS,
          durationSec: DURATION / 2,
        }),
      );
      bareRuns.push(
        await runLoad({
          url: bare.url,
          body,
          headers: JSON_HEADERS,
          tokens: [],
          connections: CONNECTIONS,
          durationSec: DURATION / 2,
        }),
      );
    }
    const exec = meanLoad(execRuns);
    const base = meanLoad(bareRuns);
    if (exec.non2xx + exec.errors > 0)
      throw new Error(`exec load saw ${exec.non2xx} non-2xx and ${exec.errors} errors`);

    const cliRows = cliProcessRows(body, runtimes[0]!.env);
    await Promise.all(runtimes.map((r) => r.close()));
    const ratio = exec.reqPerSec / Math.max(1, base.reqPerSec);
    return [
      {
        metric: `task get req/s, ${CONNECTIONS} conns, authenticated`,
        value: Math.round(exec.reqPerSec),
        unit: 'req/s',
      },
      {
        metric: `bare hono route req/s, ${CONNECTIONS} conns`,
        value: Math.round(base.reqPerSec),
        unit: 'req/s',
      },
      {
        metric: 'task get / bare hono req/s',
        value: ratio,
        unit: 'x',
        target: '>= 0.7x',
        pass: ratio >= 0.7,
      },
      {
        metric: 'task get p99',
        value: exec.p99Ms,
        unit: 'ms',
        target: '<= 5 ms',
        pass: exec.p99Ms <= 5,
      },
      { metric: 'bare hono p99', value: base.p99Ms, unit: 'ms' },
      ...cliRows,
    ];
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
