import { fileURLToPath } from 'node:url';
import { call, closeHttp } from '../devkit/http.js';
import { startDaemon, startRuntime, type Runtime } from '../devkit/daemon.js';
import { consoleCookie, fillAudit, openLive, type LiveTab } from '../devkit/console-load.js';
import { median, type BenchResult } from './result.js';
import { benchHome } from './procs.js';

/**
 * What open console tabs cost the agents: a daemon whose audit trail holds
 * 100,000 calls in the last hour (the default retention), and two agents
 * each calling Exec `task list` one call after the other. Each round
 * measures the calls' latency for a slice with four Overview tabs open
 * (one session, as a person with four tabs) and for a slice with none, the
 * order alternating between rounds so that other work on the machine hits
 * both alike. The tabs are opened at the start of their slice: the first
 * summary of the hour, the costliest read, falls inside it. The agents run
 * in this process; the daemon's thread is what is measured.
 */
export const name = 'console-load';

const ROWS = 100_000;
const TABS = 4;
const AGENTS = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SLICE_SEC = Number(process.env.BENCH_SLICE ?? 4);
const TARGET_P95_MS = 50;

const p95 = (xs: readonly number[]) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * 0.95) - 1)] ?? NaN;

export async function run(): Promise<BenchResult[]> {
  const d = await startDaemon({ home: benchHome('agentteam-bench-console-') });
  const open: LiveTab[] = [];
  const agents: Runtime[] = [];
  try {
    await d.stop();
    fillAudit(d.home, ROWS, Date.now());
    await d.start();
    for (let i = 0; i < AGENTS; i++)
      agents.push(await startRuntime(d, { server: 'bench', agent: `b${i}` }));
    const session = await consoleCookie(d);
    const slice = async (withTabs: boolean): Promise<number[]> => {
      if (withTabs)
        for (let i = 0; i < TABS; i++) open.push(openLive(d, session, '/console/live/overview'));
      const latencies: number[] = [];
      const until = performance.now() + SLICE_SEC * 1000;
      await Promise.all(
        agents.map(async (rt) => {
          while (performance.now() < until) {
            const t0 = performance.now();
            const r = await call(rt, 'task', 'list', {});
            if (r.status !== 200)
              throw new Error(`task list answered ${r.status}: ${r.text.slice(0, 200)}`);
            latencies.push(performance.now() - t0);
          }
        }),
      );
      for (const tab of open.splice(0)) tab.close();
      return latencies;
    };
    await slice(false);
    const withTabs: number[][] = [],
      without: number[][] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? [true, false] : [false, true];
      for (const tabs of order) (tabs ? withTabs : without).push(await slice(tabs));
    }
    const at = `${ROWS.toLocaleString('en')} audit rows in the hour, ${AGENTS} agents, ${ROUNDS} rounds of ${SLICE_SEC}s`;
    const p95With = median(withTabs.map(p95)),
      p95Without = median(without.map(p95));
    return [
      {
        metric: `task list p95, ${TABS} Overview tabs open (${at}; median of rounds)`,
        value: p95With,
        unit: 'ms',
        target: `<= ${TARGET_P95_MS} ms`,
        pass: p95With <= TARGET_P95_MS,
      },
      {
        metric: `task list p95, no tab open (${at}; median of rounds)`,
        value: p95Without,
        unit: 'ms',
      },
      {
        metric: `task list p95, tabs / no tab (median of rounds)`,
        value: median(withTabs.map((w, i) => p95(w) / Math.max(1e-9, p95(without[i]!)))),
        unit: 'x',
      },
      {
        metric: `task list max, ${TABS} Overview tabs open (worst round)`,
        value: Math.max(...withTabs.map((w) => Math.max(...w))),
        unit: 'ms',
      },
      {
        metric: `task list calls answered per slice, tabs / no tab (median)`,
        value: median(withTabs.map((w, i) => w.length / Math.max(1, without[i]!.length))),
        unit: 'x',
      },
    ];
  } finally {
    for (const tab of open) tab.close();
    await Promise.all(agents.map((r) => r.close()));
    await d.close();
    closeHttp();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run())
    process.stdout.write(
      `${r.metric}: ${Number.isInteger(r.value) ? r.value : r.value.toFixed(1)} ${r.unit}${r.target ? ` (target ${r.target}: ${r.pass ? 'ok' : 'MISSED'})` : ''}\n`,
    );
}
