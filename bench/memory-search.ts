import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { rpc } from '../devkit/http.js';
import { startDaemon, startRuntime } from '../devkit/daemon.js';
import type { BenchResult } from './result.js';

/**
 * memory_search over 10,000 memory files of 4 KB through a real daemon and
 * runtime credential: first-build indexing throughput (files/s, from the
 * first call to the first answered search) and the latency of sequential
 * tools/call memory_search for a rare word and for frequent words (ranking
 * cost grows with the number of matching passages), beside tools/call
 * message_history_read (a 20-message page) measured the same way in the
 * same run.
 */
export const name = 'memory-search';

const FILES = Number(process.env.BENCH_MEMORY_FILES ?? 10_000);
const FILE_BYTES = 4096;
const CALLS = Number(process.env.BENCH_CALLS ?? 400);

/** A fixed pseudo-random source, so every run indexes the same text. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const VOCAB = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}`);

/** ~4 KB of words with a skewed (roughly Zipf) distribution and one unique code word per file. */
function fileText(i: number, next: () => number): string {
  const lines = [`# Note ${i}`, ''];
  let size = 20;
  while (size < FILE_BYTES - 80) {
    const words: string[] = [];
    for (let w = 0; w < 10; w++) words.push(VOCAB[Math.floor(VOCAB.length * next() ** 3)]!);
    if (lines.length === 20) words.push(`code${i}`);
    const line = words.join(' ');
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n').padEnd(FILE_BYTES - 1, ' ')}\n`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function timeCalls(
  call: (i: number) => Promise<void>,
  n: number,
): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 30; i++) await call(i); // warm-up
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

export interface MemoryBenchReport {
  files: number;
  indexSeconds: number;
  filesPerSec: number;
  rare: { p50: number; p99: number };
  frequent: { p50: number; p99: number };
  history: { p50: number; p99: number };
}

export async function measure(): Promise<MemoryBenchReport> {
  const daemon = await startDaemon();
  try {
    const folder = join(daemon.home, 'memory', 'bench');
    const next = rng(42);
    for (let i = 0; i < FILES; i++) {
      const dir = join(folder, `d${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `n${i}.md`), fileText(i, next));
    }
    const rt = await startRuntime(daemon, { server: 'local', agent: 'bench' });
    try {
      const url = rt.mcpUrl;
      const token = rt.token();
      let id = 0;
      const call = async (tool: string, args: Record<string, unknown>) => {
        const res = await rpc(url, token, {
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: { name: tool, arguments: args },
        });
        const result = (
          JSON.parse(res.body) as {
            result?: {
              isError?: boolean;
              content: { text: string }[];
              structuredContent?: unknown;
            };
          }
        ).result;
        if (res.status !== 200 || !result)
          throw new Error(`${tool}: ${res.status} ${res.body.slice(0, 200)}`);
        return result;
      };

      const t0 = performance.now();
      for (;;) {
        const r = await call('memory_search', { query: 'code7' });
        if (!r.isError) break;
        if (!r.content[0]!.text.includes('index_unavailable')) throw new Error(r.content[0]!.text);
        await new Promise((res) => setTimeout(res, 25));
      }
      const indexSeconds = (performance.now() - t0) / 1000;
      const probe = Math.floor(FILES * 0.4242);
      const check = (await call('memory_search', { query: `code${probe}` })).structuredContent as {
        hits: { path: string; line: number }[];
      };
      if (check.hits[0]?.path !== `d${Math.floor(probe / 100)}/n${probe}.md`)
        throw new Error(`memory_search found ${JSON.stringify(check.hits[0])}`);

      const search = async (query: string) => {
        const r = await call('memory_search', { query, limit: 10 });
        if (r.isError) throw new Error(r.content[0]!.text);
      };
      // A rare word (one passage) and frequent ones: the 40 most common words each occur in 16-100% of all passages.
      const rare = await timeCalls((i) => search(`code${(i * 7919) % FILES}`), CALLS);
      const frequent = await timeCalls(
        (i) => search(i % 2 === 0 ? VOCAB[i % 40]! : `${VOCAB[i % 40]} ${VOCAB[(i * 3 + 1) % 40]}`),
        CALLS / 4,
      );

      for (let i = 0; i < 20; i++)
        await call('message_send', { target: 'channel:bench', content: `benchmark message ${i}` });
      const history = await timeCalls(async () => {
        const r = await call('message_history_read', { target: 'channel:bench', limit: 20 });
        if (r.isError) throw new Error(r.content[0]!.text);
      }, CALLS);
      return {
        files: FILES,
        indexSeconds,
        filesPerSec: FILES / indexSeconds,
        rare,
        frequent,
        history,
      };
    } finally {
      await rt.close();
    }
  } finally {
    await daemon.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const r = await measure();
  const ms = (x: number) => Math.round(x * 100) / 100;
  return [
    {
      metric: `memory index first build (${r.files} files of 4 KB)`,
      value: Math.round(r.filesPerSec),
      unit: 'files/s',
    },
    {
      metric: `memory_search p50, a rare word (${r.files} files, sequential)`,
      value: ms(r.rare.p50),
      unit: 'ms',
    },
    { metric: `memory_search p99, a rare word`, value: ms(r.rare.p99), unit: 'ms' },
    {
      metric: `memory_search p50, frequent words (each in 16-100% of passages)`,
      value: ms(r.frequent.p50),
      unit: 'ms',
    },
    { metric: `memory_search p99, frequent words`, value: ms(r.frequent.p99), unit: 'ms' },
    {
      metric: 'message_history_read p50 (same run, sequential)',
      value: ms(r.history.p50),
      unit: 'ms',
    },
    {
      metric: 'message_history_read p99 (same run, sequential)',
      value: ms(r.history.p99),
      unit: 'ms',
    },
    {
      metric: 'memory_search (rare word) / message_history_read p50',
      value: r.rare.p50 / r.history.p50,
      unit: 'x',
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await measure();
  process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
}
