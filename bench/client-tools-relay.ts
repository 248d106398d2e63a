import { readFileSync } from 'node:fs';
import { cpus, loadavg as osLoadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rpc, type RawResponse } from '../devkit/http.js';
import { startDaemon } from '../devkit/daemon.js';
import type { BenchResult } from './result.js';
import { openBenchLeases, runLoad, startLineServer, type LoadResult } from './procs.js';
import type { PacedConfig, PacedResult } from './client-tools-paced.js';
import { spawn } from 'node:child_process';

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
const PACED = fileURLToPath(new URL('./client-tools-paced.js', import.meta.url));
const FLOOR = fileURLToPath(new URL('./client-tools-floor.js', import.meta.url));
/** The acceptance rate: 200 relayed calls a second, spread evenly over the 50 agents (BENCH_RELAY_RATE to try another). */
export const PACED_RATE = Number(process.env.BENCH_RELAY_RATE ?? 200);
/** Rounds of paced plain / relay / floor runs, alternated so load drift hits each alike. */
const ROUNDS = 3;

/** One paced run (or the SSE floor) in its own process. */
function runPaced(
  cfg: PacedConfig | { sse: true; url: string; rate: number; n: number },
): Promise<PacedResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [PACED, JSON.stringify(cfg)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as PacedResult)
        : reject(new Error(`paced caller exited ${code}`)),
    );
  });
}

const med = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * What the relay adds over a plain call, hop by hop, at the floor. A plain
 * call is one agent->daemon round trip; a relayed call has that same round
 * trip and, inside it: the daemon->app event (one SSE delivery), the claim
 * (one round trip: the app waits for it before answering) and the result
 * (its request only: the daemon answers the agent as soon as it has it, so
 * the result's own response travels in parallel with the agent's).
 */
export function floorAdded(rttMs: number, sseMs: number): number {
  return sseMs + rttMs + rttMs / 2;
}
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const call = (tool: string, args: unknown) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: tool, arguments: args },
  });
const PLAIN = call('message_history_read', { target: 'channel:bench', limit: 20 });
const RELAY = call('bench_echo', { text: 'ping' });

/** CPU time (user + system) a process has used, in µs; NaN where /proc is not available. */
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const loadavg = () =>
  osLoadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

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
  /** The same CPU figures over the autocannon quota runs (as measured before the even pacing). */
  quotaCpu: { daemonPlainUs: number; daemonRelayUs: number; appRelayUs: number };
  /** Daemon CPU per call during the evenly paced runs (load-independent cost), µs. */
  daemonCpuPlainUs: number;
  daemonCpuRelayUs: number;
  appCpuRelayUs: number;
  /** Evenly paced at PACED_RATE (own caller, keep-alive), medians over ROUNDS alternated rounds. */
  even: {
    plainP50Ms: number;
    relayP50Ms: number;
    relayP99Ms: number;
    addedP50Ms: number;
    failed: number;
    lateMs: number;
  };
  /** The floor in the same run: plain node:http between two processes. */
  floor: { rttP50Ms: number; sseP50Ms: number; addedMs: number };
  /** even.addedP50Ms / floor.addedMs. */
  ratio: number;
  load: { before: string; after: string };
}

function check(
  res: RawResponse,
  what: string,
  ok: (r: {
    isError?: boolean;
    content?: { text?: string }[];
    structuredContent?: { messages?: unknown[] };
  }) => boolean,
): void {
  const result = (JSON.parse(res.body) as { result?: Parameters<typeof ok>[0] }).result;
  if (res.status !== 200 || !result || result.isError || !ok(result))
    throw new Error(`${what} did not answer: ${res.status} ${res.body.slice(0, 300)}`);
}

export async function measure(
  opts: { agents?: number; durationSec?: number } = {},
): Promise<RelayReport> {
  const agents = opts.agents ?? 50;
  const durationSec = opts.durationSec ?? Number(process.env.BENCH_DURATION ?? 8);
  const loadBefore = loadavg();
  const daemon = await startDaemon();
  const leases: { close(): void }[] = [];
  let app: Awaited<ReturnType<typeof startLineServer>> | null = null;
  let floorServer: Awaited<ReturnType<typeof startLineServer>> | null = null;
  try {
    floorServer = await startLineServer(FLOOR, 'floor server');
    const opToken = readFileSync(join(daemon.home, 'operator.token'), 'utf8').trim();
    app = await startLineServer(APP, 'client tools app', [daemon.url, opToken]);
    const { tokens, url } = await openBenchLeases(daemon, agents, leases);
    for (let i = 0; i < 20; i++) {
      await rpc(
        url,
        tokens[0]!,
        JSON.parse(
          call('message_send', { target: 'channel:bench', content: `benchmark message ${i}` }),
        ),
      );
    }
    check(
      await rpc(url, tokens[0]!, JSON.parse(PLAIN)),
      'message_history_read',
      (r) => r.structuredContent?.messages?.length === 20,
    );
    check(
      await rpc(url, tokens[0]!, JSON.parse(RELAY)),
      'bench_echo',
      (r) => r.content?.[0]?.text === '{"text":"ping"}',
    );

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

    // Evenly paced at 200 calls/s: plain, relay and the floor, alternated.
    const evenSec = Math.max(2, Math.round(durationSec / 2));
    const paced = (body: string, expect: string, u = url) =>
      runPaced({
        url: u,
        headers: HEADERS,
        tokens,
        body,
        rate: PACED_RATE,
        durationSec: evenSec,
        warmupSec: 0.5,
        expect,
      });
    const ev = {
      plain: [] as PacedResult[],
      relay: [] as PacedResult[],
      rtt: [] as PacedResult[],
      sse: [] as PacedResult[],
    };
    const cpu = { plain: 0, relay: 0, app: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      let d0 = cpuMicros(daemon.pid);
      ev.plain.push(await paced(PLAIN, '"messages"'));
      cpu.plain += cpuMicros(daemon.pid) - d0;
      d0 = cpuMicros(daemon.pid);
      const a0 = cpuMicros(appPid);
      ev.relay.push(await paced(RELAY, 'ping'));
      cpu.relay += cpuMicros(daemon.pid) - d0;
      cpu.app += cpuMicros(appPid) - a0;
      ev.rtt.push(await paced(PLAIN, '"ok":true', `${floorServer.url}/rt`));
      ev.sse.push(
        await runPaced({
          sse: true,
          url: floorServer.url,
          rate: PACED_RATE,
          n: Math.round(PACED_RATE * evenSec),
        }),
      );
    }
    // Per call, counting the warm-up calls each run also made.
    const perRun = Math.round(PACED_RATE * (evenSec + 0.5)) * ROUNDS;
    const plainP50 = med(ev.plain.map((x) => x.p50Ms));
    const relayP50 = med(ev.relay.map((x) => x.p50Ms));
    const rtt = med(ev.rtt.map((x) => x.p50Ms));
    const sse = med(ev.sse.map((x) => x.p50Ms));
    const even = {
      plainP50Ms: plainP50,
      relayP50Ms: relayP50,
      relayP99Ms: med(ev.relay.map((x) => x.p99Ms)),
      addedP50Ms: round3(relayP50 - plainP50),
      failed: [...ev.plain, ...ev.relay].reduce((n, x) => n + x.failed, 0),
      lateMs: med([...ev.plain, ...ev.relay].map((x) => x.lateMs)),
    };
    const floor = { rttP50Ms: rtt, sseP50Ms: sse, addedMs: round3(floorAdded(rtt, sse)) };
    return {
      even,
      floor,
      ratio: round3(even.addedP50Ms / floor.addedMs),
      load: { before: loadBefore, after: loadavg() },
      agents,
      durationSec,
      plain,
      relay,
      rate,
      pacedPlain,
      pacedRelay,
      addedP50Ms: pacedRelay.p50Ms - pacedPlain.p50Ms,
      quotaCpu: {
        daemonPlainUs: (c1 - c0) / Math.max(1, pacedPlain.total),
        daemonRelayUs: (c2 - c1) / Math.max(1, pacedRelay.total),
        appRelayUs: (a2 - a1) / Math.max(1, pacedRelay.total),
      },
      daemonCpuPlainUs: cpu.plain / perRun,
      daemonCpuRelayUs: cpu.relay / perRun,
      appCpuRelayUs: cpu.app / perRun,
    };
  } finally {
    for (const l of leases) l.close();
    app?.proc.kill('SIGKILL');
    floorServer?.proc.kill('SIGKILL');
    await daemon.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const r = await measure();
  const at = `${r.agents} agents`;
  const ev = `even ${PACED_RATE} calls/s`;
  return [
    {
      metric: `plain message_history_read calls/s (${at})`,
      value: Math.round(r.plain.reqPerSec),
      unit: 'req/s',
    },
    { metric: `plain message_history_read p50 (${at})`, value: r.plain.p50Ms, unit: 'ms' },
    {
      metric: `client tool relay calls/s (${at})`,
      value: Math.round(r.relay.reqPerSec),
      unit: 'req/s',
    },
    { metric: `client tool relay p50 (${at})`, value: r.relay.p50Ms, unit: 'ms' },
    { metric: `client tool relay p99 (${at})`, value: r.relay.p99Ms, unit: 'ms' },
    {
      metric: `autocannon quota ${r.rate}/s (bursts of ${r.agents}): relay p50 minus plain p50`,
      value: r.addedP50Ms,
      unit: 'ms',
    },
    { metric: `${ev}: plain p50`, value: r.even.plainP50Ms, unit: 'ms' },
    { metric: `${ev}: relay p50`, value: r.even.relayP50Ms, unit: 'ms' },
    { metric: `${ev}: relay p99`, value: r.even.relayP99Ms, unit: 'ms' },
    {
      metric: `${ev}: relay p50 minus plain p50`,
      value: r.even.addedP50Ms,
      unit: 'ms',
      target: '<= 5 ms',
      pass: r.even.addedP50Ms <= 5,
    },
    {
      metric: 'floor: keep-alive loopback round trip p50 (node:http, two processes)',
      value: r.floor.rttP50Ms,
      unit: 'ms',
    },
    {
      metric: 'floor: SSE event delivery p50 (node:http, two processes)',
      value: r.floor.sseP50Ms,
      unit: 'ms',
    },
    {
      metric:
        'floor: the hops a relay adds (SSE + claim round trip + half a round trip for the result)',
      value: r.floor.addedMs,
      unit: 'ms',
    },
    {
      metric: 'relay added p50 / its floor',
      value: r.ratio,
      unit: 'x',
      target: '<= 2x',
      pass: r.ratio <= 2,
    },
    { metric: `daemon CPU per plain call (${ev})`, value: r.daemonCpuPlainUs, unit: 'us' },
    {
      metric: `daemon CPU per relayed call (${ev}; 3 requests + 1 event)`,
      value: r.daemonCpuRelayUs,
      unit: 'us',
    },
    { metric: `app CPU per relayed call (${ev})`, value: r.appCpuRelayUs, unit: 'us' },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await measure();
  const row = (label: string, x: LoadResult) =>
    `${label.padEnd(22)} ${x.reqPerSec.toFixed(0).padStart(7)} calls/s  p50 ${x.p50Ms} ms  p99 ${x.p99Ms} ms  non2xx ${x.non2xx}  errors ${x.errors}`;
  const f = r.floor;
  process.stdout.write(
    `load average before ${r.load.before}, after ${r.load.after} (${cpus().length} cores)\n` +
      `${r.agents} agents, ${r.durationSec} s each\nclosed loop:\n${row('message_history_read', r.plain)}\n${row('client tool relay', r.relay)}\n` +
      `autocannon quota of ${r.rate} calls/s (each connection's share back to back at the top of each second):\n${row('message_history_read', r.pacedPlain)}\n${row('client tool relay', r.pacedRelay)}\n` +
      `evenly paced at ${PACED_RATE} calls/s (median of ${ROUNDS} rounds; sends ${r.even.lateMs} ms behind schedule at p50; ${r.even.failed} failed):\n` +
      `  plain p50 ${r.even.plainP50Ms} ms, relay p50 ${r.even.relayP50Ms} ms (p99 ${r.even.relayP99Ms} ms): the relay adds ${r.even.addedP50Ms} ms\n` +
      `floor (node:http, two processes, same pacing): round trip ${f.rttP50Ms} ms, SSE delivery ${f.sseP50Ms} ms\n` +
      `  hops a relay adds: SSE ${f.sseP50Ms} + claim ${f.rttP50Ms} + result request ${f.rttP50Ms}/2 = ${f.addedMs} ms\n` +
      `  relay added / floor = ${r.even.addedP50Ms} / ${f.addedMs} = ${r.ratio}x (target <= 2x, and added <= 5 ms)\n` +
      `CPU per call, evenly paced: daemon ${r.daemonCpuPlainUs.toFixed(0)} us plain, ${r.daemonCpuRelayUs.toFixed(0)} us relayed; app ${r.appCpuRelayUs.toFixed(0)} us\n` +
      `CPU per call, autocannon quota: daemon ${r.quotaCpu.daemonPlainUs.toFixed(0)} us plain, ${r.quotaCpu.daemonRelayUs.toFixed(0)} us relayed; app ${r.quotaCpu.appRelayUs.toFixed(0)} us\n`,
  );
}
