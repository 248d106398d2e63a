import { createRequire } from 'node:module';

/**
 * Load generator process for the auth benchmark (kept out of the servers'
 * processes): autocannon GETs, one token per connection, round robin.
 * Input: one JSON argument; output: one JSON line.
 */
interface LoadConfig {
  url: string;
  tokens: string[];
  connections: number;
  durationSec: number;
}

type Autocannon = (opts: Record<string, unknown>) => Promise<{
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const cfg = JSON.parse(process.argv[2] ?? '{}') as LoadConfig;
let next = 0;
const result = await autocannon({
  url: cfg.url,
  method: 'GET',
  connections: cfg.connections,
  duration: cfg.durationSec,
  setupClient: (client: { setHeaders(h: Record<string, string>): void }) => {
    const token = cfg.tokens[next++ % Math.max(1, cfg.tokens.length)];
    if (token) client.setHeaders({ authorization: `Bearer ${token}` });
  },
});
process.stdout.write(`${JSON.stringify({
  reqPerSec: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts,
})}\n`);
