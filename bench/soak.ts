import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { startDaemon, startRuntime } from '../devkit/daemon.js';
import type { BenchResult } from './result.js';
import { startMix, type Mix } from './soak-mix.js';
import { type Counters, keepAlive, post, worker, WORKERS } from './soak-worker.js';

/**
 * Soak: a real daemon on loopback under mixed Exec and MCP traffic for a
 * long time (30 min by default; `npm run bench -- soak --minutes 2`), with a
 * runtime opened and closed every few seconds on the side. The MCP traffic
 * includes a client tool served by an app in its own process, a declared
 * command tool, memory_search, and an app re-registering fresh tool names
 * every 5 s (soak-mix.ts). The daemon's RSS
 * is sampled throughout (and its heap, through operator status). After the
 * warm-up (the first fifth, at least 30 s) the RSS must not grow by more
 * than 10%: no sample of the last two thirds may exceed the highest of the
 * first third by more than that.
 * Not in the default bench list: it runs only when named.
 */
export const name = 'soak';

const MAX_GROWTH = 0.1;

function minutesArg(argv: readonly string[]): number {
  const i = argv.indexOf('--minutes');
  const v =
    i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--minutes='))?.slice('--minutes='.length);
  const n = v === undefined ? 30 : Number(v);
  if (!(n > 0)) throw new Error(`--minutes must be a positive number, got "${v}"`);
  return n;
}

/** The daemon's own view of its memory (operator status), for telling heap growth from native growth. */
async function heapMb(url: string, home: string): Promise<{ heap: number; external: number }> {
  const token = readFileSync(join(home, 'operator.token'), 'utf8').trim();
  const r = await new Promise<string>((resolve, reject) => {
    const req = request(
      `${url}/api/v1/status`,
      { agent: false, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        let b = '';
        res.setEncoding('utf8').on('data', (d: string) => (b += d));
        res.on('end', () => resolve(b));
      },
    );
    req.on('error', reject);
    req.end();
  });
  const m = (JSON.parse(r) as { data: { memory: { heapUsed: number; external: number } } }).data
    .memory;
  return { heap: m.heapUsed / 1048576, external: m.external / 1048576 };
}

function rssKb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

export async function run(argv: readonly string[] = process.argv.slice(2)): Promise<BenchResult[]> {
  const minutes = minutesArg(argv);
  const totalMs = minutes * 60_000;
  const warmMs = Math.max(30_000, totalMs / 5);
  const sampleMs = Math.max(2_000, Math.min(30_000, totalMs / 60));
  const daemon = await startDaemon();
  const c: Counters = {
    exec: 0,
    mcp: 0,
    mixed: { client: 0, declared: 0, memory: 0 },
    errors: 0,
    lastError: '',
    leases: 0,
  };
  let mix: Mix | null = null;
  const samples: { t: number; kb: number }[] = [];
  const heap: number[] = [];
  try {
    mix = await startMix(daemon, ['soak-a', 'soak-b']);
    const runtimes = [
      await startRuntime(daemon, { server: 'local', agent: 'soak-a' }),
      await startRuntime(daemon, { server: 'local', agent: 'soak-b' }),
    ];
    const t0 = Date.now();
    const until = t0 + totalMs;
    const sampler = setInterval(() => {
      const s = { t: Date.now() - t0, kb: rssKb(daemon.pid) };
      samples.push(s);
      void heapMb(daemon.url, daemon.home).then(
        (h) => {
          heap.push(h.heap);
          process.stderr.write(
            `soak: ${(s.t / 1000).toFixed(0)} s  rss ${(s.kb / 1024).toFixed(1)} MB  heap ${h.heap.toFixed(1)} MB  external ${h.external.toFixed(1)} MB  exec ${c.exec}  mcp ${c.mcp} (client ${c.mixed.client}, declared ${c.mixed.declared}, memory ${c.mixed.memory})  errors ${c.errors}  leases ${c.leases}\n`,
          );
        },
        () => undefined,
      );
    }, sampleMs);
    // Lease churn: a runtime opened and closed every 5 s (credential files, renewal timers, drivers).
    const churn = (async () => {
      while (Date.now() < until - 5_000) {
        const rt = await startRuntime(daemon, { server: 'local', agent: `churn${c.leases % 4}` });
        await post(`${rt.env.AGENTTEAM_EXEC_BASE_URL}/task/list`, rt.token(), { limit: 1 }, true);
        await rt.close();
        c.leases++;
        await new Promise((r) => setTimeout(r, 5_000));
      }
    })();
    const m = mix;
    await Promise.all([
      ...Array.from({ length: WORKERS }, (_, i) => worker(runtimes[i % 2]!, i, until, c, m)),
      churn,
    ]);
    clearInterval(sampler);
    samples.push({ t: Date.now() - t0, kb: rssKb(daemon.pid) });
    await Promise.all(runtimes.map((r) => r.close()));
  } finally {
    keepAlive.destroy();
    const registrations = mix?.registrations() ?? 0;
    await mix?.stop();
    await daemon.close();
    c.registrations = registrations;
  }
  // RSS is a sawtooth (V8 grows its heap, a major GC gives pages back), so single samples mislead.
  // The level is the highest sample of the first third after warm-up; growth is how far any later
  // sample rises above it. A leak keeps raising the peaks; a bounded cache stops.
  const split = warmMs + (totalMs - warmMs) / 3;
  const first = samples.filter((s) => s.t > warmMs && s.t <= split);
  const later = samples.filter((s) => s.t > split);
  if (first.length === 0 || later.length === 0) throw new Error('too few RSS samples; run longer');
  const baseKb = Math.max(...first.map((s) => s.kb));
  const maxKb = Math.max(...later.map((s) => s.kb));
  const growth = maxKb / baseKb - 1;
  const seconds = totalMs / 1000;
  const points = [0, 0.2, 0.4, 0.6, 0.8, 1].map(
    (f) => samples[Math.min(samples.length - 1, Math.round(f * (samples.length - 1)))]!,
  );
  process.stderr.write(
    `soak: rss samples (s:MB) ${samples.map((s) => `${Math.round(s.t / 1000)}:${(s.kb / 1024).toFixed(1)}`).join(' ')}\n`,
  );
  if (c.errors > 0) process.stderr.write(`soak: last error ${c.lastError}\n`);
  return [
    {
      metric: `duration (${WORKERS} workers, warm-up ${Math.round(warmMs / 1000)} s)`,
      value: Math.round(seconds),
      unit: 's',
    },
    { metric: 'Exec calls', value: c.exec, unit: 'calls' },
    { metric: 'MCP calls', value: c.mcp, unit: 'calls' },
    { metric: 'calls per second', value: Math.round((c.exec + c.mcp) / seconds), unit: 'req/s' },
    {
      metric: 'of the MCP calls: client tool (app in its own process)',
      value: c.mixed.client,
      unit: 'calls',
    },
    { metric: 'of the MCP calls: declared command tool', value: c.mixed.declared, unit: 'calls' },
    { metric: 'of the MCP calls: memory_search', value: c.mixed.memory, unit: 'calls' },
    {
      metric: 'registrations of 8 fresh client tool names',
      value: c.registrations ?? 0,
      unit: 'registrations',
    },
    { metric: 'runtimes opened and closed', value: c.leases, unit: 'leases' },
    { metric: 'failed calls', value: c.errors, unit: 'calls', target: '0', pass: c.errors === 0 },
    ...points.map((s) => ({
      metric: `daemon RSS at ${Math.round(s.t / 1000)} s`,
      value: Math.round(s.kb / 102.4) / 10,
      unit: 'MB',
    })),
    {
      metric: 'RSS level: highest in the first third after warm-up',
      value: Math.round(baseKb / 102.4) / 10,
      unit: 'MB',
    },
    { metric: 'highest RSS after that', value: Math.round(maxKb / 102.4) / 10, unit: 'MB' },
    {
      metric: 'RSS growth over the level',
      value: Math.round(growth * 1000) / 10,
      unit: '%',
      target: `<= ${MAX_GROWTH * 100}%`,
      pass: growth <= MAX_GROWTH,
    },
  ];
}
