import { cpus } from 'node:os';
import type { LoadResult } from './procs.js';
import type { BenchResult } from './result.js';

/**
 * What client-tools-relay.ts measures, and how it is reported: the
 * benchmark rows with their targets, and the text printed when the file is
 * run on its own.
 */

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

/** The report as benchmark rows, with the targets the relay is held to. */
export function reportRows(r: RelayReport, how: { pacedRate: number }): BenchResult[] {
  const at = `${r.agents} agents`;
  const ev = `even ${how.pacedRate} calls/s`;
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

/** The report as the lines `node bench/client-tools-relay.js` prints. */
export function reportText(r: RelayReport, how: { pacedRate: number; rounds: number }): string {
  const row = (label: string, x: LoadResult) =>
    `${label.padEnd(22)} ${x.reqPerSec.toFixed(0).padStart(7)} calls/s  p50 ${x.p50Ms} ms  p99 ${x.p99Ms} ms  non2xx ${x.non2xx}  errors ${x.errors}`;
  const f = r.floor;
  return (
    `load average before ${r.load.before}, after ${r.load.after} (${cpus().length} cores)\n` +
    `${r.agents} agents, ${r.durationSec} s each\nclosed loop:\n${row('message_history_read', r.plain)}\n${row('client tool relay', r.relay)}\n` +
    `autocannon quota of ${r.rate} calls/s (each connection's share back to back at the top of each second):\n${row('message_history_read', r.pacedPlain)}\n${row('client tool relay', r.pacedRelay)}\n` +
    `evenly paced at ${how.pacedRate} calls/s (median of ${how.rounds} rounds; sends ${r.even.lateMs} ms behind schedule at p50; ${r.even.failed} failed):\n` +
    `  plain p50 ${r.even.plainP50Ms} ms, relay p50 ${r.even.relayP50Ms} ms (p99 ${r.even.relayP99Ms} ms): the relay adds ${r.even.addedP50Ms} ms\n` +
    `floor (node:http, two processes, same pacing): round trip ${f.rttP50Ms} ms, SSE delivery ${f.sseP50Ms} ms\n` +
    `  hops a relay adds: SSE ${f.sseP50Ms} + claim ${f.rttP50Ms} + result request ${f.rttP50Ms}/2 = ${f.addedMs} ms\n` +
    `  relay added / floor = ${r.even.addedP50Ms} / ${f.addedMs} = ${r.ratio}x (target <= 2x, and added <= 5 ms)\n` +
    `CPU per call, evenly paced: daemon ${r.daemonCpuPlainUs.toFixed(0)} us plain, ${r.daemonCpuRelayUs.toFixed(0)} us relayed; app ${r.appCpuRelayUs.toFixed(0)} us\n` +
    `CPU per call, autocannon quota: daemon ${r.quotaCpu.daemonPlainUs.toFixed(0)} us plain, ${r.quotaCpu.daemonRelayUs.toFixed(0)} us relayed; app ${r.quotaCpu.appRelayUs.toFixed(0)} us\n`
  );
}
