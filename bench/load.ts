import { createRequire } from 'node:module';
import type { LoadConfig } from './procs.js';

/**
 * Load generator process for the HTTP benchmarks (kept out of the servers'
 * processes): autocannon with one token per connection, round robin, so
 * several runtime authorizations share the load. A config with a body POSTs
 * it; one without GETs. Input: one JSON argument; output: one JSON line.
 */

type Autocannon = (opts: Record<string, unknown>) => Promise<{
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const cfg = JSON.parse(process.argv[2] ?? '{}') as LoadConfig;
let next = 0;
const result = await autocannon({
  url: cfg.url,
  method: cfg.body === undefined ? 'GET' : 'POST',
  body: cfg.body,
  headers: cfg.headers ?? {},
  connections: cfg.connections,
  duration: cfg.durationSec,
  ...(cfg.rate !== undefined ? { overallRate: cfg.rate } : {}),
  setupClient: (client: { setHeaders(h: Record<string, string>): void }) => {
    const token = cfg.tokens[next++ % Math.max(1, cfg.tokens.length)];
    if (token) client.setHeaders({ ...cfg.headers, authorization: `Bearer ${token}` });
  },
});
process.stdout.write(
  `${JSON.stringify({
    reqPerSec: result.requests.average,
    total: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  })}\n`,
);
