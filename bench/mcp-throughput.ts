import { fileURLToPath } from 'node:url';
import { rpc, type RawResponse } from '../devkit/http.js';
import { startDaemon, startRuntime } from '../devkit/daemon.js';
import type { BenchResult } from './result.js';
import { placement } from './pin.js';
import { meanLoad, runLoad, startLineServer, type LoadResult } from './procs.js';

const ROUNDS = 4;

/**
 * tools/call message_history_read throughput: the daemon's MCP route (real
 * daemon, real runtime credentials, SQLite, shared result boundary), once as
 * a 2025-11-25 client calls it and once as a stateless 2026-07-28 client does
 * (per-request `_meta`, `Mcp-Method`/`Mcp-Name` headers), against the
 * official SDK's stateless server with an equivalent in-memory tool, in the
 * same run. Load comes from autocannon in a separate process.
 */
export const name = 'mcp-throughput';

export interface McpThroughputReport {
  connections: number;
  durationSec: number;
  agentteam: LoadResult;
  agentteam2026: LoadResult;
  sdkStateless: LoadResult;
  ratio: number;
  ratio2026: number;
}

const BASELINE = fileURLToPath(new URL('./mcp-sdk-baseline.js', import.meta.url));
export const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
export const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'message_history_read', arguments: { target: 'channel:bench', limit: 20 } },
});

const MODERN = '2026-07-28';
const HEADERS_2026 = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 'message_history_read',
};
const CALL_2026 = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'message_history_read',
    arguments: { target: 'channel:bench', limit: 20 },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
    },
  },
});

function load(
  server: { pid: number },
  url: string,
  tokens: string[],
  connections: number,
  durationSec: number,
  modern = false,
): Promise<LoadResult> {
  return runLoad(
    {
      url,
      body: modern ? CALL_2026 : CALL,
      headers: modern ? HEADERS_2026 : HEADERS,
      tokens,
      connections,
      durationSec,
    },
    server,
  );
}

/** Both servers must answer the call with 20 messages before anything is measured. */
export function checkPage(res: RawResponse, who: string): void {
  const page = (
    JSON.parse(res.body) as {
      result?: { isError?: boolean; structuredContent?: { messages?: unknown[] } };
    }
  ).result;
  if (res.status !== 200 || page?.isError || page?.structuredContent?.messages?.length !== 20) {
    throw new Error(
      `${who} did not answer the benchmark call: ${res.status} ${res.body.slice(0, 300)}`,
    );
  }
}

/** Rows for bench/run.ts. */
export async function run(): Promise<BenchResult[]> {
  const r = await measure();
  const at = `${r.connections} conn`;
  const cpu = r.sdkStateless.serverCpuUs / r.agentteam.serverCpuUs;
  const cpu2026 = r.sdkStateless.serverCpuUs / r.agentteam2026.serverCpuUs;
  return [
    { metric: placement(), value: ROUNDS, unit: 'rounds' },
    {
      metric: `agentteam MCP tools/call server CPU per request (${at})`,
      value: r.agentteam.serverCpuUs,
      unit: 'µs',
    },
    {
      metric: `agentteam MCP 2026-07-28 server CPU per request (${at})`,
      value: r.agentteam2026.serverCpuUs,
      unit: 'µs',
    },
    {
      metric: `SDK stateless server CPU per request (${at})`,
      value: r.sdkStateless.serverCpuUs,
      unit: 'µs',
    },
    {
      metric: 'SDK stateless / agentteam 2025-11-25 server CPU per request',
      value: cpu,
      unit: 'x',
      target: '>= 10x',
      pass: cpu >= 10,
    },
    {
      metric: 'SDK stateless / agentteam 2026-07-28 server CPU per request',
      value: cpu2026,
      unit: 'x',
      target: '>= 10x',
      pass: cpu2026 >= 10,
    },
    {
      metric: `agentteam MCP tools/call req/s (${at})`,
      value: Math.round(r.agentteam.reqPerSec),
      unit: 'req/s',
    },
    { metric: `agentteam MCP tools/call p99 (${at})`, value: r.agentteam.p99Ms, unit: 'ms' },
    {
      metric: `agentteam MCP 2026-07-28 tools/call req/s (${at})`,
      value: Math.round(r.agentteam2026.reqPerSec),
      unit: 'req/s',
    },
    {
      metric: `agentteam MCP 2026-07-28 tools/call p99 (${at})`,
      value: r.agentteam2026.p99Ms,
      unit: 'ms',
    },
    {
      metric: `SDK stateless tools/call req/s (${at})`,
      value: Math.round(r.sdkStateless.reqPerSec),
      unit: 'req/s',
    },
    { metric: `SDK stateless tools/call p99 (${at})`, value: r.sdkStateless.p99Ms, unit: 'ms' },
    {
      metric: 'agentteam 2025-11-25 / SDK stateless throughput',
      value: r.ratio,
      unit: 'x',
    },
    {
      metric: 'agentteam 2026-07-28 / SDK stateless throughput',
      value: r.ratio2026,
      unit: 'x',
    },
  ];
}

export async function measure(
  opts: { connections?: number; durationSec?: number } = {},
): Promise<McpThroughputReport> {
  const connections = opts.connections ?? 50;
  const durationSec = opts.durationSec ?? Number(process.env.BENCH_DURATION ?? 8);
  const daemon = await startDaemon();
  const baseline = await startLineServer(BASELINE, 'SDK baseline');
  try {
    // Two authorizations for one agent: one token may hold only 32 requests in flight.
    const runtimes = [
      await startRuntime(daemon, { server: 'local', agent: 'bench' }),
      await startRuntime(daemon, { server: 'local', agent: 'bench' }),
    ];
    const url = runtimes[0]!.mcpUrl;
    const tokens = runtimes.map((r) => r.token());
    for (let i = 0; i < 20; i++) {
      await rpc(url, tokens[0]!, {
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: {
          name: 'message_send',
          arguments: { target: 'channel:bench', content: `benchmark message ${i}` },
        },
      });
    }
    checkPage(await rpc(url, tokens[0]!, JSON.parse(CALL)), 'agentteam');
    checkPage(
      await rpc(url, tokens[0]!, JSON.parse(CALL_2026), HEADERS_2026),
      'agentteam 2026-07-28',
    );
    checkPage(await rpc(baseline.url, '', JSON.parse(CALL)), 'sdk baseline');

    // Warm-up, then the three targets in turn, ROUNDS times, each for a slice of the duration: on a shared
    // machine the load drifts, and interleaving spreads that drift over all three instead of one.
    const sdk = { pid: baseline.proc.pid! };
    await load(daemon, url, tokens, connections, 1);
    await load(daemon, url, tokens, connections, 1, true);
    await load(sdk, baseline.url, [], connections, 1);
    const slice = Math.max(1, Math.round(durationSec / ROUNDS));
    const runs: { a: LoadResult[]; m: LoadResult[]; s: LoadResult[] } = { a: [], m: [], s: [] };
    for (let i = 0; i < ROUNDS; i++) {
      // The side that goes first alternates between rounds.
      if (i % 2 === 1) runs.s.push(await load(sdk, baseline.url, [], connections, slice));
      runs.a.push(await load(daemon, url, tokens, connections, slice));
      runs.m.push(await load(daemon, url, tokens, connections, slice, true));
      if (i % 2 === 0) runs.s.push(await load(sdk, baseline.url, [], connections, slice));
    }
    const agentteam = meanLoad(runs.a);
    const agentteam2026 = meanLoad(runs.m);
    const sdkStateless = meanLoad(runs.s);
    await Promise.all(runtimes.map((r) => r.close()));
    const sdkRate = Math.max(1, sdkStateless.reqPerSec);
    return {
      connections,
      durationSec,
      agentteam,
      agentteam2026,
      sdkStateless,
      ratio: agentteam.reqPerSec / sdkRate,
      ratio2026: agentteam2026.reqPerSec / sdkRate,
    };
  } finally {
    baseline.proc.kill('SIGKILL');
    await daemon.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await measure();
  const row = (label: string, x: LoadResult) =>
    `${label.padEnd(16)} ${x.reqPerSec.toFixed(0).padStart(8)} req/s  ${x.serverCpuUs.toFixed(0)} µs CPU/req  p50 ${x.p50Ms} ms  p99 ${x.p99Ms} ms  non2xx ${x.non2xx}  errors ${x.errors}`;
  process.stdout.write(
    `tools/call message_history_read, ${r.connections} connections, ${r.durationSec} s\n` +
      `${row('agentteam 2025', r.agentteam)}\n${row('agentteam 2026', r.agentteam2026)}\n${row('sdk stateless', r.sdkStateless)}\n` +
      `ratio 2025-11-25 ${r.ratio.toFixed(1)}x, 2026-07-28 ${r.ratio2026.toFixed(1)}x (target >= 10x)\n`,
  );
}
