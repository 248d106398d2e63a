import { rmSync } from 'node:fs';
import type { BenchResult } from './result.js';
import { benchHome } from './procs.js';
import { startDaemon, type Daemon } from '../devkit/daemon.js';
import { pinnedAround, placement } from './pin.js';
import { operatorToken, requestLease, type LeaseResult } from '../devkit/lease.js';
import { send } from '../devkit/http.js';

/**
 * Lease churn at the lease limit: 512 runtime leases opened one by one (the
 * time each takes to its first NDJSON line, and all of them in a row), then
 * all 512 closed at once while `GET /api/v1/status` is asked again and again,
 * each time on a fresh connection, until the daemon holds no lease: how long
 * the operator waits while hundreds of runtimes end; then 32 leases ended one
 * at a time. Pinned when possible: the daemon on one core, this process on
 * the other (bench/pin.ts).
 */
export const name = 'lease-churn';

const LEASES = 512;
const ENDS = 32;
const STATUS_TARGET_MS = 100;
const OPEN_TARGET_MS = 10;
const ROW_TARGET_MS = 5_000;

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

export async function run(): Promise<BenchResult[]> {
  const home = benchHome('agentteam-bench-churn-');
  const d = await startDaemon({ home });
  const leases: LeaseResult[] = [];
  try {
    return await pinnedAround(d.pid, () => churn(d, leases));
  } finally {
    for (const l of leases) l.close();
    await d.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function churn(d: Daemon, leases: LeaseResult[]): Promise<BenchResult[]> {
  const op = operatorToken(d);
  const opens: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < LEASES; i++) {
    const started = performance.now();
    const lease = await requestLease(d.url, op, { serverId: 'local', agentId: `bench${i}` });
    leases.push(lease);
    if (lease.status !== 200) throw new Error(`lease ${i} refused: ${JSON.stringify(lease.body)}`);
    opens.push(performance.now() - started);
  }
  const inARow = performance.now() - t0;
  opens.sort((a, b) => a - b);

  const status = async () => {
    const started = performance.now();
    const r = await send(new URL('/api/v1/status', d.url).toString(), 'GET', {
      authorization: `Bearer ${op}`,
    });
    if (r.status !== 200) throw new Error(`status answered ${r.status}`);
    return {
      ms: performance.now() - started,
      leases: (JSON.parse(r.body) as { data: { leases: number } }).data.leases,
    };
  };
  const c0 = performance.now();
  for (const l of leases) l.close();
  const waits: number[] = [];
  for (;;) {
    const s = await status();
    waits.push(s.ms);
    if (s.leases === 0) break;
  }
  const drained = performance.now() - c0;
  waits.sort((a, b) => a - b);
  const worst = waits[waits.length - 1] ?? NaN;
  leases.length = 0;

  // Ending one lease at a time: from closing its connection to the daemon holding one lease fewer.
  const ends: number[] = [];
  for (let i = 0; i < ENDS; i++) {
    const lease = await requestLease(d.url, op, { serverId: 'local', agentId: `end${i}` });
    leases.push(lease);
    const started = performance.now();
    lease.close();
    while ((await status()).leases !== 0);
    ends.push(performance.now() - started);
  }
  ends.sort((a, b) => a - b);
  const p50 = pct(opens, 0.5);
  return [
    {
      metric: 'lease open, one by one: p50',
      value: p50,
      unit: 'ms',
      target: `<= ${OPEN_TARGET_MS} ms`,
      pass: p50 <= OPEN_TARGET_MS,
    },
    { metric: 'lease open, one by one: p99', value: pct(opens, 0.99), unit: 'ms' },
    {
      metric: `${LEASES} leases opened in a row`,
      value: inARow,
      unit: 'ms',
      target: `<= ${ROW_TARGET_MS} ms`,
      pass: inARow <= ROW_TARGET_MS,
    },
    {
      metric: `lease end, one by one (${ENDS}, to the status without it): p50`,
      value: pct(ends, 0.5),
      unit: 'ms',
    },
    {
      metric: `status while ${LEASES} leases end: max`,
      value: worst,
      unit: 'ms',
      target: `<= ${STATUS_TARGET_MS} ms`,
      pass: worst <= STATUS_TARGET_MS,
    },
    {
      metric: `status while ${LEASES} leases end: p99 (${waits.length} asked)`,
      value: pct(waits, 0.99),
      unit: 'ms',
    },
    { metric: `all ${LEASES} leases gone`, value: drained, unit: 'ms' },
    { metric: placement(), value: 1, unit: 'run' },
  ];
}
