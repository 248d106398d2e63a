import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rpc, type RawResponse } from '../test/harness/http.js';
import { startDaemon } from '../test/harness/daemon.js';
import type { BenchResult } from './result.js';
import { openBenchLeases, runLoad, startLineServer, type LoadResult } from './procs.js';

/**
 * The client-tool relay: agent tools/call -> daemon parks it and publishes
 * it on the app's event stream -> the app claims and answers over HTTP ->
 * the agent's call returns. 50 runtime authorizations (agents) call at once
 * on loopback; the plain message_history_read call is measured in the same
 * run on the same daemon as the baseline. The app runs in its own process,
 * so does the load generator.
 */
export const name = 'client-tools-relay';

const APP = fileURLToPath(new URL('./client-tools-app.js', import.meta.url));
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const call = (tool: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } });
const PLAIN = call('message_history_read', { target: 'channel:bench', limit: 20 });
const RELAY = call('bench_echo', { text: 'ping' });

/** CPU time (user + system) a process has used, in µs; NaN where /proc is not available. */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1e6) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

export interface RelayReport {
  agents: number;
  durationSec: number;
  /** Closed loop: every agent calls again as soon as it has its answer (throughput, saturated latency). */
  plain: LoadResult;
  relay: LoadResult;
  /** Paced: the same fixed call rate for both, below saturation (the latency the relay adds). */
  rate: number;
  pacedPlain: LoadResult;
  pacedRelay: LoadResult;
  addedP50Ms: number;
  /** Daemon CPU per call during the paced runs (load-independent cost), µs. */
  daemonCpuPlainUs: number;
  daemonCpuRelayUs: number;
  appCpuRelayUs: number;
}

function check(res: RawResponse, what: string, ok: (r: { isError?: boolean; content?: { text?: string }[]; structuredContent?: { messages?: unknown[] } }) => boolean): void {
  const result = (JSON.parse(res.body) as { result?: Parameters<typeof ok>[0] }).result;
  if (res.status !== 200 || !result || result.isError || !ok(result)) throw new Error(`${what} did not answer: ${res.status} ${res.body.slice(0, 300)}`);
}

export async function measure(opts: { agents?: number; durationSec?: number } = {}): Promise<RelayReport> {
  const agents = opts.agents ?? 50;
  const durationSec = opts.durationSec ?? Number(process.env.BENCH_DURATION ?? 8);
  const daemon = await startDaemon();
  const leases: { close(): void }[] = [];
  let app: Awaited<ReturnType<typeof startLineServer>> | null = null;
  try {
    const opToken = readFileSync(join(daemon.home, 'operator.token'), 'utf8').trim();
    app = await startLineServer(APP, 'client tools app', [daemon.url, opToken]);
    const { tokens, url } = await openBenchLeases(daemon, agents, leases);
    for (let i = 0; i < 20; i++) {
      await rpc(url, tokens[0]!, JSON.parse(call('message_send', { target: 'channel:bench', content: `benchmark message ${i}` })));
    }
    check(await rpc(url, tokens[0]!, JSON.parse(PLAIN)), 'message_history_read', (r) => r.structuredContent?.messages?.length === 20);
    check(await rpc(url, tokens[0]!, JSON.parse(RELAY)), 'bench_echo', (r) => r.content?.[0]?.text === '{"text":"ping"}');

    const load = (body: string, sec: number, rate?: number) =>
      runLoad({ url, body, headers: HEADERS, tokens, connections: agents, durationSec: sec, ...(rate !== undefined ? { rate } : {}) });
    await load(PLAIN, 1);
    const plain = await load(PLAIN, durationSec);
    await load(RELAY, 1);
    const relay = await load(RELAY, durationSec);
    // Paced at a quarter of the relay's own closed-loop throughput: 50 agents, each a few calls a second.
    const rate = Math.max(agents, Math.round(relay.reqPerSec / 4));
    const appPid = app.proc.pid ?? 0;
    const c0 = cpuMicros(daemon.pid);
    const pacedPlain = await load(PLAIN, durationSec, rate);
    const c1 = cpuMicros(daemon.pid);
    const a1 = cpuMicros(appPid);
    const pacedRelay = await load(RELAY, durationSec, rate);
    const c2 = cpuMicros(daemon.pid);
    const a2 = cpuMicros(appPid);
    return {
      agents, durationSec, plain, relay, rate, pacedPlain, pacedRelay, addedP50Ms: pacedRelay.p50Ms - pacedPlain.p50Ms,
      daemonCpuPlainUs: (c1 - c0) / Math.max(1, pacedPlain.total),
      daemonCpuRelayUs: (c2 - c1) / Math.max(1, pacedRelay.total),
      appCpuRelayUs: (a2 - a1) / Math.max(1, pacedRelay.total),
    };
  } finally {
    for (const l of leases) l.close();
    app?.proc.kill('SIGKILL');
    await daemon.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const r = await measure();
  const at = `${r.agents} agents`;
  return [
    { metric: `plain message_history_read calls/s (${at})`, value: Math.round(r.plain.reqPerSec), unit: 'req/s' },
    { metric: `plain message_history_read p50 (${at})`, value: r.plain.p50Ms, unit: 'ms' },
    { metric: `plain message_history_read p99 (${at})`, value: r.plain.p99Ms, unit: 'ms' },
    { metric: `client tool relay calls/s (${at})`, value: Math.round(r.relay.reqPerSec), unit: 'req/s' },
    { metric: `client tool relay p50 (${at})`, value: r.relay.p50Ms, unit: 'ms' },
    { metric: `client tool relay p99 (${at})`, value: r.relay.p99Ms, unit: 'ms' },
    { metric: `paced ${r.rate} calls/s: plain p50`, value: r.pacedPlain.p50Ms, unit: 'ms' },
    { metric: `paced ${r.rate} calls/s: relay p50`, value: r.pacedRelay.p50Ms, unit: 'ms' },
    { metric: `paced ${r.rate} calls/s: relay p99`, value: r.pacedRelay.p99Ms, unit: 'ms' },
    { metric: 'paced: relay p50 minus plain p50', value: r.addedP50Ms, unit: 'ms', target: '<= 2 ms', pass: r.addedP50Ms <= 2 },
    { metric: 'daemon CPU per plain call (paced)', value: r.daemonCpuPlainUs, unit: 'us' },
    { metric: 'daemon CPU per relayed call (paced; 3 requests + 1 event)', value: r.daemonCpuRelayUs, unit: 'us' },
    { metric: 'app CPU per relayed call (paced)', value: r.appCpuRelayUs, unit: 'us' },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await measure();
  const row = (label: string, x: LoadResult) =>
    `${label.padEnd(22)} ${x.reqPerSec.toFixed(0).padStart(7)} calls/s  p50 ${x.p50Ms} ms  p99 ${x.p99Ms} ms  non2xx ${x.non2xx}  errors ${x.errors}`;
  process.stdout.write(
    `${r.agents} agents, ${r.durationSec} s each\nclosed loop:\n${row('message_history_read', r.plain)}\n${row('client tool relay', r.relay)}\n` +
      `paced at ${r.rate} calls/s:\n${row('message_history_read', r.pacedPlain)}\n${row('client tool relay', r.pacedRelay)}\n` +
      `relay adds ${r.addedP50Ms} ms at p50 when paced (target <= 2 ms)\n` +
      `CPU per call while paced: daemon ${r.daemonCpuPlainUs.toFixed(0)} us plain, ${r.daemonCpuRelayUs.toFixed(0)} us relayed; app ${r.appCpuRelayUs.toFixed(0)} us (${cpus().length} cores)\n`,
  );
}
