import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rpc, type RawResponse } from '../devkit/http.js';
import { startDaemon } from '../devkit/daemon.js';
import type { BenchResult } from './result.js';
import { openBenchLeases, runLoad, startLineServer, type LoadResult } from './procs.js';

/**
 * A client tool's round trip through a stdio child (agent tools/call ->
 * daemon -> event stream -> `agentteam serve --stdio` -> the app on its
 * stdin/stdout -> back) beside the same round trip through an app on the
 * HTTP/SSE routes (claim + answer), on one daemon in the same run. Twelve
 * agents, so the child's 16-pending bound never refuses a call. Both apps
 * run in their own processes, so does the load generator.
 */
export const name = 'client-tools-stdio';

const HTTP_APP = fileURLToPath(new URL('./client-tools-app.js', import.meta.url));
const STDIO_APP = fileURLToPath(new URL('./client-tools-stdio-app.js', import.meta.url));
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const call = (tool: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: tool, arguments: { text: 'ping' } },
  });
const HTTP = call('bench_echo');
const STDIO = call('client__bench_echo');

function check(res: RawResponse, what: string): void {
  const result = (
    JSON.parse(res.body) as { result?: { isError?: boolean; content?: { text?: string }[] } }
  ).result;
  if (
    res.status !== 200 ||
    !result ||
    result.isError ||
    result.content?.[0]?.text !== '{"text":"ping"}'
  )
    throw new Error(`${what} did not answer: ${res.status} ${res.body.slice(0, 300)}`);
}

export interface StdioReport {
  agents: number;
  durationSec: number;
  http: LoadResult;
  stdio: LoadResult;
  rate: number;
  pacedHttp: LoadResult;
  pacedStdio: LoadResult;
}

export async function measure(
  opts: { agents?: number; durationSec?: number } = {},
): Promise<StdioReport> {
  const agents = opts.agents ?? 12;
  const durationSec = opts.durationSec ?? Number(process.env.BENCH_DURATION ?? 6);
  const daemon = await startDaemon();
  const leases: { close(): void }[] = [];
  const procs: { kill(sig: NodeJS.Signals): unknown }[] = [];
  try {
    const opToken = readFileSync(join(daemon.home, 'operator.token'), 'utf8').trim();
    procs.push((await startLineServer(HTTP_APP, 'client tools app', [daemon.url, opToken])).proc);
    procs.push((await startLineServer(STDIO_APP, 'stdio app', [daemon.home])).proc);
    const { tokens, url } = await openBenchLeases(daemon, agents, leases);
    check(await rpc(url, tokens[0]!, JSON.parse(HTTP)), 'bench_echo (HTTP/SSE)');
    check(await rpc(url, tokens[0]!, JSON.parse(STDIO)), 'client__bench_echo (stdio)');
    const load = (body: string, sec: number, rate?: number) =>
      runLoad({
        url,
        body,
        headers: HEADERS,
        tokens,
        connections: agents,
        durationSec: sec,
        ...(rate !== undefined ? { rate } : {}),
      });
    // Alternated, warmed: neither transport gets the quieter half of the run.
    await load(HTTP, 1);
    await load(STDIO, 1);
    const http = await load(HTTP, durationSec);
    const stdio = await load(STDIO, durationSec);
    const rate = Math.max(agents, Math.round(Math.min(http.reqPerSec, stdio.reqPerSec) / 4));
    const pacedHttp = await load(HTTP, durationSec, rate);
    const pacedStdio = await load(STDIO, durationSec, rate);
    return { agents, durationSec, http, stdio, rate, pacedHttp, pacedStdio };
  } finally {
    for (const l of leases) l.close();
    for (const p of procs) p.kill('SIGKILL');
    await daemon.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const r = await measure();
  const at = `${r.agents} agents`;
  const p50Ratio = r.pacedStdio.p50Ms / Math.max(0.001, r.pacedHttp.p50Ms);
  const tputRatio = r.http.reqPerSec / Math.max(1, r.stdio.reqPerSec);
  return [
    {
      metric: `HTTP/SSE relay calls/s (${at}, closed loop)`,
      value: Math.round(r.http.reqPerSec),
      unit: 'req/s',
    },
    {
      metric: `stdio relay calls/s (${at}, closed loop)`,
      value: Math.round(r.stdio.reqPerSec),
      unit: 'req/s',
    },
    {
      metric: 'HTTP/SSE calls/s over stdio calls/s',
      value: Number(tputRatio.toFixed(2)),
      unit: 'x',
      target: '<= 1.5x',
      pass: tputRatio <= 1.5,
    },
    { metric: `paced ${r.rate} calls/s: HTTP/SSE p50`, value: r.pacedHttp.p50Ms, unit: 'ms' },
    { metric: `paced ${r.rate} calls/s: stdio p50`, value: r.pacedStdio.p50Ms, unit: 'ms' },
    {
      metric: 'paced: stdio p50 over HTTP/SSE p50',
      value: Number(p50Ratio.toFixed(2)),
      unit: 'x',
      target: '<= 1.5x',
      pass: p50Ratio <= 1.5,
    },
    { metric: `paced ${r.rate} calls/s: stdio p99`, value: r.pacedStdio.p99Ms, unit: 'ms' },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await measure();
  const row = (label: string, x: LoadResult) =>
    `${label.padEnd(10)} ${x.reqPerSec.toFixed(0).padStart(7)} calls/s  p50 ${x.p50Ms} ms  p99 ${x.p99Ms} ms  non2xx ${x.non2xx}  errors ${x.errors}`;
  process.stdout.write(
    `${r.agents} agents, ${r.durationSec} s each\nclosed loop:\n${row('HTTP/SSE', r.http)}\n${row('stdio', r.stdio)}\n` +
      `paced at ${r.rate} calls/s:\n${row('HTTP/SSE', r.pacedHttp)}\n${row('stdio', r.pacedStdio)}\n`,
  );
}
