import { Hono } from 'hono';
import { fileURLToPath } from 'node:url';
import { hostOriginGuard } from '../daemon/http/host-origin.js';
import { median, type BenchResult } from './result.js';

/**
 * Cost of the Host/Origin check every request passes: the same hono app
 * dispatching one small route with and without the middleware, in process,
 * alternated in rounds, timed in process CPU time. Reported as the
 * extra time per request and the throughput ratio (guarded / bare).
 */
export const name = 'host-origin';

const PORT = 43210;
const ROUNDS = 9;
const PER_ROUND = 20_000;

function app(kind: 'bare' | 'noop' | 'guarded'): Hono {
  const a = new Hono();
  if (kind === 'guarded') {
    a.use(
      '*',
      hostOriginGuard({
        listenHost: '127.0.0.1',
        port: () => PORT,
        reject: () => new Response(null, { status: 403 }),
      }),
    );
  }
  if (kind === 'noop') a.use('*', async (_c, next) => next());
  a.get('/x', (c) => c.body('{"ok":true}', 200, { 'content-type': 'application/json' }));
  return a;
}

async function round(a: Hono, req: Request): Promise<number> {
  // CPU time of this process, not wall time: the machine is shared, and waiting for a core is not cost.
  const t0 = process.cpuUsage();
  for (let i = 0; i < PER_ROUND; i++) {
    // One bodiless GET reused: the timing is dispatch, not Request construction.
    const res = await a.fetch(req);
    if (res.status !== 200) throw new Error(`unexpected ${res.status}`);
  }
  const d = process.cpuUsage(t0);
  return ((d.user + d.system) * 1000) / PER_ROUND; // ns
}

export async function run(): Promise<BenchResult[]> {
  const bare = app('bare');
  const noop = app('noop');
  const guarded = app('guarded');
  const plain = new Request(`http://127.0.0.1:${PORT}/x`, {
    headers: { host: `127.0.0.1:${PORT}` },
  });
  const withOrigin = new Request(`http://127.0.0.1:${PORT}/x`, {
    headers: { host: `localhost:${PORT}`, origin: `http://localhost:${PORT}` },
  });
  await round(bare, plain);
  await round(guarded, withOrigin);
  const b: number[] = [],
    n: number[] = [],
    g: number[] = [],
    o: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Rotate the order so no variant always runs right after a GC-heavy one.
    const jobs = [
      () => round(bare, plain).then((v) => b.push(v)),
      () => round(noop, plain).then((v) => n.push(v)),
      () => round(guarded, plain).then((v) => g.push(v)),
      () => round(guarded, withOrigin).then((v) => o.push(v)),
    ];
    for (let k = 0; k < jobs.length; k++) await jobs[(i + k) % jobs.length]!();
  }
  const [mb, mn, mg, mo] = [median(b), median(n), median(g), median(o)];
  return [
    { metric: 'bare hono dispatch, in process (CPU time)', value: mb / 1000, unit: 'us/req' },
    { metric: 'with an empty middleware', value: (mn - mb) / 1000, unit: 'us extra' },
    { metric: 'with Host check (no Origin)', value: (mg - mb) / 1000, unit: 'us extra' },
    { metric: 'with Host and Origin checks', value: (mo - mb) / 1000, unit: 'us extra' },
    { metric: 'guarded / bare throughput (Host only)', value: mb / mg, unit: 'x' },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run())
    process.stdout.write(`${r.metric}: ${r.value.toFixed(2)} ${r.unit}\n`);
}
