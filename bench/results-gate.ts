import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { openLease } from '../devkit/lease.js';
import { rpc, post } from '../devkit/http.js';
import { median, type BenchResult } from './result.js';
import { runLoad } from './procs.js';

/**
 * What masking first costs, against the build before it in the same run
 * (`BENCH_BEFORE=<a built checkout of the earlier commit>`): two daemons,
 * each with 20 credential variables configured, the same memory folder and
 * the same load, measured in alternating rounds so machine noise hits both:
 * - memory_search p50 (sequential tools/call, a rare word, 2,000 notes);
 * - `task get` daemon CPU per request (user + system, /proc) under a
 *   fixed 20-connection load.
 * The target: after within 5% of before on both.
 */
export const name = 'results-gate';

const AFTER_BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
const execFileP = promisify(execFile);
const FILES = Number(process.env.BENCH_MEMORY_FILES ?? 2_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const DURATION = Number(process.env.BENCH_DURATION ?? 12);
const CONNECTIONS = 20;

interface Daemon {
  readonly home: string;
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

const VOCAB = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}`);

function note(i: number): string {
  const lines = [`# Note ${i}`, ''];
  let x = i * 2654435761;
  for (let l = 0; l < 40; l++) {
    const words: string[] = [];
    for (let w = 0; w < 10; w++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      words.push(VOCAB[(x >>> 8) % VOCAB.length]!);
    }
    if (l === 20) words.push(`code${i}`);
    lines.push(words.join(' '));
  }
  return `${lines.join('\n')}\n`;
}

async function daemon(bin: string, env: Record<string, string>): Promise<Daemon> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-bench-gate-'));
  const folder = join(home, 'memory', 'bench');
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < FILES; i++) writeFileSync(join(folder, `n${i}.md`), note(i));
  const full = { ...process.env, ...env, AGENTTEAM_HOME: home };
  const { stdout } = await execFileP(process.execPath, [bin, 'daemon', 'start'], {
    env: full,
    timeout: 20_000,
  });
  const { url, pid } = JSON.parse(stdout.trim().split('\n').pop() ?? '') as {
    url: string;
    pid: number;
  };
  return {
    home,
    url,
    pid,
    async stop() {
      await execFileP(process.execPath, [bin, 'daemon', 'stop'], {
        env: full,
        timeout: 20_000,
      }).catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Side {
  readonly label: 'before' | 'after';
  readonly d: Daemon;
  search(i: number): Promise<void>;
  readonly task: { url: string; body: string; tokens: string[] };
  close(): void;
  readonly p50s: number[];
  cpu: number;
  requests: number;
  searchCpu: number;
  searches: number;
}

async function side(label: Side['label'], d: Daemon): Promise<Side> {
  const lease = await openLease(d as never, { serverId: 'local', agentId: 'bench' });
  const leases = [lease, await openLease(d as never, { serverId: 'local', agentId: 'bench' })];
  const base = (lease.data as unknown as { execBaseUrl: string }).execBaseUrl;
  let id = 0;
  const search = async (i: number) => {
    const res = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: {
        name: 'memory_search',
        arguments: { query: `code${(i * 7919) % FILES}`, limit: 10 },
      },
    });
    if (res.status !== 200 || res.body.includes('"isError":true'))
      throw new Error(`${label} memory_search: ${res.body.slice(0, 300)}`);
  };
  // The first build, then a check that a search answers.
  for (let i = 0; ; i++) {
    const res = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name: 'memory_search', arguments: { query: 'code7' } },
    });
    if (!res.body.includes('index_unavailable')) break;
    if (i > 600) throw new Error(`${label}: the memory index never became ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await search(0);
  const created = await post(
    `${base}/task/create`,
    lease.token(),
    JSON.stringify({ title: 'bench task' }),
  );
  const body = JSON.stringify({ id: created.json.data.task.id as string });
  return {
    label,
    d,
    search,
    p50s: [],
    cpu: 0,
    requests: 0,
    searchCpu: 0,
    searches: 0,
    task: { url: `${base}/task/get`, body, tokens: leases.map((l) => l.token()) },
    close: () => {
      for (const l of leases) l.close();
    },
  };
}

async function searchP50(s: Side, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await s.search(i);
    times.push(performance.now() - t0);
  }
  return median(times);
}

export async function run(): Promise<BenchResult[]> {
  const beforeDir = process.env.BENCH_BEFORE;
  const beforeBin = beforeDir ? join(beforeDir, 'dist/cli/bin.js') : '';
  if (!beforeDir || !existsSync(beforeBin)) {
    throw new Error(
      'results-gate compares against an earlier build: set BENCH_BEFORE to a built checkout (git worktree add /tmp/gate-before <commit>; copy node_modules; npm run build there)',
    );
  }
  const secrets: Record<string, string> = {};
  for (let i = 1; i <= 20; i++)
    secrets[`BENCH_SERVICE_${String(i).padStart(2, '0')}_TOKEN`] =
      randomBytes(24).toString('base64url');
  const daemons = [await daemon(beforeBin, secrets), await daemon(AFTER_BIN, secrets)];
  try {
    const sides = [await side('before', daemons[0]!), await side('after', daemons[1]!)];
    // Warm-up of both paths on both daemons.
    for (const s of sides) {
      await searchP50(s, 50);
      await runLoad({
        url: s.task.url,
        body: s.task.body,
        headers: { 'content-type': 'application/json' },
        tokens: s.task.tokens,
        connections: CONNECTIONS,
        durationSec: 1,
      });
    }
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) {
        const c0 = cpuMs(s.d.pid);
        s.p50s.push(await searchP50(s, CALLS / ROUNDS));
        s.searchCpu += cpuMs(s.d.pid) - c0;
        s.searches += CALLS / ROUNDS;
      }
      for (const s of order) {
        const c0 = cpuMs(s.d.pid);
        const load = await runLoad({
          url: s.task.url,
          body: s.task.body,
          headers: { 'content-type': 'application/json' },
          tokens: s.task.tokens,
          connections: CONNECTIONS,
          durationSec: DURATION / ROUNDS,
        });
        if (load.non2xx + load.errors > 0) throw new Error(`${s.label}: task get saw failures`);
        s.cpu += cpuMs(s.d.pid) - c0;
        s.requests += load.total;
      }
    }
    for (const s of sides) s.close();
    const [before, after] = sides as [Side, Side];
    const p50 = (s: Side) => median(s.p50s);
    const cpuPer = (s: Side) => (s.cpu * 1000) / Math.max(1, s.requests);
    const searchRatio = p50(after) / p50(before);
    const cpuRatio = cpuPer(after) / cpuPer(before);
    const us = (x: number) => Math.round(x * 1000);
    return [
      {
        metric: `memory_search p50 before (20 secrets, ${FILES} notes, sequential)`,
        value: us(p50(before)),
        unit: 'us',
      },
      { metric: 'memory_search p50 after', value: us(p50(after)), unit: 'us' },
      {
        metric: 'memory_search p50 after / before',
        value: searchRatio,
        unit: 'x',
        target: '<= 1.05',
        pass: searchRatio <= 1.05,
      },
      {
        metric: 'memory_search daemon CPU per call before',
        value: Math.round((before.searchCpu * 1000) / before.searches),
        unit: 'us',
      },
      {
        metric: 'memory_search daemon CPU per call after',
        value: Math.round((after.searchCpu * 1000) / after.searches),
        unit: 'us',
      },
      {
        metric: `task get daemon CPU per request before (20 secrets, ${CONNECTIONS} connections)`,
        value: Math.round(cpuPer(before)),
        unit: 'us',
      },
      {
        metric: 'task get daemon CPU per request after',
        value: Math.round(cpuPer(after)),
        unit: 'us',
      },
      {
        metric: 'task get daemon CPU per request after / before',
        value: cpuRatio,
        unit: 'x',
        target: '<= 1.05',
        pass: cpuRatio <= 1.05,
      },
    ];
  } finally {
    for (const d of daemons) await d.stop();
  }
}
