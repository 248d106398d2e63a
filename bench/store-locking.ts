import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../daemon/store/db.js';
import { TeamServer } from '../daemon/store/team-server.js';
import { SqliteSql } from '../daemon/store/sqlite-sql.js';
import type { ServerApi } from '../daemon/store/server-api.js';
import { median, type BenchResult } from './result.js';
import { taskCreate, taskGet, taskList, taskUpdate } from '../catalog/domains/task.js';
import { STORE_DOMAINS, STORE_MIGRATIONS } from '../daemon/domains/list.js';

/**
 * What normal WAL locking costs the store against `locking_mode=EXCLUSIVE`
 * (which the daemon used before, at the price of no other process being able
 * to open the store). In-process, the same store code on two files,
 * alternating rounds so machine load hits both alike; CPU time per operation
 * (process.cpuUsage), which load from other processes disturbs far less than
 * wall-clock throughput. The ratio is the median of per-round ratios.
 */
export const name = 'store-locking';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const READS = 4000;
const WRITES = 150;

interface Variant {
  readonly label: string;
  readonly db: Db;
  readonly api: ServerApi;
  ids: string[];
}

async function open(dir: string, label: string, exclusive: boolean): Promise<Variant> {
  const db = openDb(join(dir, `${label}.db`), STORE_MIGRATIONS);
  if (exclusive) db.pragma('locking_mode = EXCLUSIVE');
  let t = Date.parse('2026-01-01T00:00:00Z');
  const api = (
    await TeamServer.open(new SqliteSql(db, ':memory:'), () => (t += 1), STORE_DOMAINS)
  ).forCaller({
    serverId: 'bench',
    agentId: 'a1',
  });
  const ids: string[] = [];
  for (let i = 0; i < 200; i++)
    ids.push((await api.call(taskCreate, { title: `seed ${i}` })).task.id);
  return { label, db, api, ids };
}

async function cpuMicros(n: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await op(i);
  const d = process.cpuUsage(start);
  return (d.user + d.system) / n;
}

export async function run(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-lockbench-'));
  try {
    const normal = await open(dir, 'normal', false);
    const exclusive = await open(dir, 'exclusive', true);
    const ops: Record<string, (v: Variant) => (i: number) => Promise<unknown>> = {
      // A repeated get of one task: the read cache answers after its change-counter check (total_changes, data_version).
      'task get (cached)': (v) => () => v.api.call(taskGet, { id: v.ids[0]! }),
      // Alternating tasks after each write: every get reads SQLite.
      'task list (20)': (v) => () => v.api.call(taskList, { limit: 20 }),
      'task update (commit, fsync)': (v) => (i) =>
        v.api.call(taskUpdate, { id: v.ids[i % v.ids.length]!, title: `u${i}` }),
    };
    const rows: BenchResult[] = [];
    for (const [what, make] of Object.entries(ops)) {
      const n = what.includes('update') ? WRITES : what.includes('list') ? READS / 4 : READS;
      const per: Record<string, number[]> = { normal: [], exclusive: [] };
      const ratios: number[] = [];
      for (let r = 0; r < ROUNDS + 1; r++) {
        const a = await cpuMicros(n, make(normal));
        const b = await cpuMicros(n, make(exclusive));
        if (r === 0) continue; // warm-up
        per.normal!.push(a);
        per.exclusive!.push(b);
        ratios.push(a / b);
      }
      rows.push(
        {
          metric: `${what}: normal WAL locking, CPU per op`,
          value: median(per.normal!),
          unit: 'µs',
        },
        {
          metric: `${what}: exclusive locking, CPU per op`,
          value: median(per.exclusive!),
          unit: 'µs',
        },
        { metric: `${what}: normal / exclusive`, value: median(ratios), unit: 'x' },
      );
    }
    normal.db.close();
    exclusive.db.close();
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
