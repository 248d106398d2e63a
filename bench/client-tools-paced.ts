import { Agent, request } from 'node:http';

/**
 * The paced caller of the client-tools relay bench, in its own process: calls
 * sent at an even spacing (1/rate apart, open loop: a slow answer does not
 * delay the next send), round robin over the agents' tokens, each agent on
 * its own keep-alive connection pool. autocannon's `overallRate` is not used
 * here because it is a per-connection quota per second: every connection
 * fires its quota back to back at the top of each second, so "paced" calls
 * arrive as bursts of 50 and their latency is mostly queueing.
 *
 * Input: one JSON argument {url, headers, tokens, body, rate, durationSec,
 * warmupSec}; output: one JSON line {sent, ok, failed, p50Ms, p99Ms,
 * lateMs} where lateMs is the median lag of a send behind its schedule.
 */

export interface PacedConfig {
  url: string;
  headers: Record<string, string>;
  tokens: string[];
  body: string;
  rate: number;
  durationSec: number;
  warmupSec?: number;
  /** Fail a call whose answer does not hold this text (an error would otherwise look fast). */
  expect?: string;
}

export interface PacedResult {
  sent: number;
  ok: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  lateMs: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

export async function paced(cfg: PacedConfig): Promise<PacedResult> {
  const target = new URL(cfg.url);
  const agents = cfg.tokens.map(() => new Agent({ keepAlive: true, maxSockets: 8 }));
  const payload = Buffer.from(cfg.body);
  const one = (i: number): Promise<number | null> => {
    const k = i % cfg.tokens.length;
    const t0 = performance.now();
    return new Promise((resolve) => {
      const req = request(
        target,
        {
          method: 'POST',
          agent: agents[k],
          headers: {
            ...cfg.headers,
            authorization: `Bearer ${cfg.tokens[k]}`,
            'content-length': payload.length,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () =>
            resolve(
              res.statusCode === 200 && (cfg.expect === undefined || text.includes(cfg.expect))
                ? performance.now() - t0
                : null,
            ),
          );
          res.on('error', () => resolve(null));
        },
      );
      req.on('error', () => resolve(null));
      req.end(payload);
    });
  };
  const phase = async (
    sec: number,
    record: boolean,
  ): Promise<{ lat: number[]; failed: number; late: number[]; sent: number }> => {
    const lat: number[] = [];
    const late: number[] = [];
    let failed = 0;
    const n = Math.max(1, Math.round(sec * cfg.rate));
    const start = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const due = start + (i * 1000) / cfg.rate;
      const wait = due - performance.now();
      if (wait > 0.5) await new Promise((r) => setTimeout(r, wait));
      late.push(Math.max(0, performance.now() - due));
      inflight.push(
        one(i).then((ms) => {
          if (ms === null) failed++;
          else if (record) lat.push(ms);
        }),
      );
    }
    await Promise.all(inflight);
    return { lat, failed, late, sent: n };
  };
  if ((cfg.warmupSec ?? 0) > 0) await phase(cfg.warmupSec!, false);
  const r = await phase(cfg.durationSec, true);
  for (const a of agents) a.destroy();
  const lat = r.lat.sort((a, b) => a - b);
  const late = r.late.sort((a, b) => a - b);
  return {
    sent: r.sent,
    ok: lat.length,
    failed: r.failed,
    p50Ms: round(quantile(lat, 0.5)),
    p99Ms: round(quantile(lat, 0.99)),
    lateMs: round(quantile(late, 0.5)),
  };
}

/**
 * The SSE floor: reads `n` events the floor server writes `rate` a second
 * and measures each one's delivery (written there -> parsed here) on the
 * system-wide monotonic clock. The first tenth is warm-up.
 */
export function sseDelivery(cfg: { url: string; rate: number; n: number }): Promise<PacedResult> {
  return new Promise((resolve, reject) => {
    const lat: number[] = [];
    const req = request(`${cfg.url}/sse?rate=${cfg.rate}&n=${cfg.n}`, (res) => {
      let buf = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        const now = process.hrtime.bigint();
        buf += c;
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const frame = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const { i, ns } = JSON.parse(data.slice(6)) as { i: number; ns: string };
          if (i >= cfg.n / 10) lat.push(Number(now - BigInt(ns)) / 1e6);
        }
      });
      res.on('end', () => {
        lat.sort((a, b) => a - b);
        resolve({
          sent: cfg.n,
          ok: lat.length,
          failed: 0,
          p50Ms: round(quantile(lat, 0.5)),
          p99Ms: round(quantile(lat, 0.99)),
          lateMs: 0,
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

if (process.argv[2] !== undefined && process.argv[1]?.endsWith('client-tools-paced.js')) {
  const arg = JSON.parse(process.argv[2]) as PacedConfig & { sse?: boolean; n?: number };
  const out = arg.sse
    ? await sseDelivery({ url: arg.url, rate: arg.rate, n: arg.n ?? 1000 })
    : await paced(arg);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
