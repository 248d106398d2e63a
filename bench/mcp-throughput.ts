import { fileURLToPath } from 'node:url';
import { rpc, startDaemon, startRuntime, type RawResponse } from '../test/mcp-harness.js';
import type { BenchResult } from './result.js';
import { runLoad, startLineServer, type LoadResult } from './procs.js';

/**
 * tools/call message_history_read throughput: the daemon's MCP route (real
 * daemon, real runtime credentials, SQLite, shared result boundary) against
 * the official SDK's stateless server with an equivalent in-memory tool, in
 * the same run. Load comes from autocannon in a separate process.
 */
export const name = 'mcp-throughput';

export interface McpThroughputReport {
  connections: number;
  durationSec: number;
  agentteam: LoadResult;
  sdkStateless: LoadResult;
  ratio: number;
}

const BASELINE = fileURLToPath(new URL('./mcp-sdk-baseline.js', import.meta.url));
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'message_history_read', arguments: { target: 'channel:bench', limit: 20 } },
});

function load(url: string, tokens: string[], connections: number, durationSec: number): Promise<LoadResult> {
  return runLoad({ url, body: CALL, headers: HEADERS, tokens, connections, durationSec });
}

/** Both servers must answer the call with 20 messages before anything is measured. */
function checkPage(res: RawResponse, who: string): void {
  const page = (JSON.parse(res.body) as { result?: { isError?: boolean; structuredContent?: { messages?: unknown[] } } }).result;
  if (res.status !== 200 || page?.isError || page?.structuredContent?.messages?.length !== 20) {
    throw new Error(`${who} did not answer the benchmark call: ${res.status} ${res.body.slice(0, 300)}`);
  }
}

/** Rows for bench/run.ts. */
export async function run(): Promise<BenchResult[]> {
  const r = await measure();
  const at = `${r.connections} conn`;
  return [
    { metric: `agentteam MCP tools/call req/s (${at})`, value: Math.round(r.agentteam.reqPerSec), unit: 'req/s' },
    { metric: `agentteam MCP tools/call p99 (${at})`, value: r.agentteam.p99Ms, unit: 'ms' },
    { metric: `SDK stateless tools/call req/s (${at})`, value: Math.round(r.sdkStateless.reqPerSec), unit: 'req/s' },
    { metric: `SDK stateless tools/call p99 (${at})`, value: r.sdkStateless.p99Ms, unit: 'ms' },
    { metric: 'agentteam / SDK stateless throughput', value: r.ratio, unit: 'x', target: '>= 10x', pass: r.ratio >= 10 },
  ];
}

export async function measure(opts: { connections?: number; durationSec?: number } = {}): Promise<McpThroughputReport> {
  const connections = opts.connections ?? 50;
  const durationSec = opts.durationSec ?? Number(process.env.BENCH_DURATION ?? 8);
  const daemon = await startDaemon();
  const baseline = await startLineServer(BASELINE, 'SDK baseline');
  try {
    // Two authorizations for one agent: one token may hold only 32 requests in flight.
    const runtimes = [await startRuntime(daemon, { server: 'local', agent: 'bench' }), await startRuntime(daemon, { server: 'local', agent: 'bench' })];
    const url = runtimes[0]!.mcpUrl;
    const tokens = runtimes.map((r) => r.token());
    for (let i = 0; i < 20; i++) {
      await rpc(url, tokens[0]!, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'message_send', arguments: { target: 'channel:bench', content: `benchmark message ${i}` } } });
    }
    checkPage(await rpc(url, tokens[0]!, JSON.parse(CALL)), 'agentteam');
    checkPage(await rpc(baseline.url, '', JSON.parse(CALL)), 'sdk baseline');

    await load(url, tokens, connections, 1); // warm-up
    const agentteam = await load(url, tokens, connections, durationSec);
    await load(baseline.url, [], connections, 1);
    const sdkStateless = await load(baseline.url, [], connections, durationSec);
    await Promise.all(runtimes.map((r) => r.close()));
    return { connections, durationSec, agentteam, sdkStateless, ratio: agentteam.reqPerSec / Math.max(1, sdkStateless.reqPerSec) };
  } finally {
    baseline.proc.kill('SIGKILL');
    await daemon.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await measure();
  const row = (label: string, x: LoadResult) =>
    `${label.padEnd(16)} ${x.reqPerSec.toFixed(0).padStart(8)} req/s  p50 ${x.p50Ms} ms  p99 ${x.p99Ms} ms  non2xx ${x.non2xx}  errors ${x.errors}`;
  process.stdout.write(
    `tools/call message_history_read, ${r.connections} connections, ${r.durationSec} s\n` +
      `${row('agentteam', r.agentteam)}\n${row('sdk stateless', r.sdkStateless)}\n` +
      `ratio ${r.ratio.toFixed(1)}x (target >= 10x)\n`,
  );
}
