import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { call, closeHttp, rpc } from '../devkit/http.js';
import { startDaemon, startRuntime, type Daemon, type Runtime } from '../devkit/daemon.js';
import { median, type BenchResult } from './result.js';
import { AUDIT_OFF, benchHome, meanLoad, runLoad, type LoadResult } from './procs.js';

/**
 * What the audit trail costs the request path: two daemons of this build in
 * one run, one with the trail on (the default) and one with `audit.json`
 * `{"enabled": false}`, loaded in turn (on, off, on, off...) so that other
 * work on the machine hits both alike. Load: Exec `task get` and MCP
 * `tools/call message_history_read` (a 20-message page), 50 connections over
 * two runtime authorizations, autocannon in its own process.
 *
 * Besides req/s (which other work on a shared machine moves a lot) each run
 * reads the daemon's CPU time from /proc, so the table also gives CPU per
 * request on and off: what the trail costs, whatever else the machine runs.
 * Ratios are medians of the per-round ratios.
 */
export const name = 'audit-overhead';

const CONNECTIONS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SLICE_SEC = Number(process.env.BENCH_SLICE ?? 2);
const JSON_HEADERS = { 'content-type': 'application/json' };
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const MCP_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'message_history_read', arguments: { target: 'channel:bench', limit: 20 } },
});
const TARGET = 0.9;

interface Side {
  readonly label: string;
  readonly daemon: Daemon;
  readonly runtimes: Runtime[];
  readonly execUrl: string;
  readonly execBody: string;
  readonly mcpUrl: string;
  readonly tokens: string[];
}

async function side(label: string, audit: Record<string, unknown> | null): Promise<Side> {
  const daemon = await startDaemon({ home: benchHome('agentteam-bench-audit-', audit) });
  // One authorization may hold only 32 requests in flight; the load keeps 50.
  const runtimes = [
    await startRuntime(daemon, { server: 'bench', agent: 'b1' }),
    await startRuntime(daemon, { server: 'bench', agent: 'b1' }),
  ];
  const created = await call(runtimes[0]!, 'task', 'create', { title: 'bench' });
  const execBody = JSON.stringify({ id: created.json.data.task.id as string });
  const mcpUrl = runtimes[0]!.env.AGENTTEAM_MCP_URL!;
  const token = runtimes[0]!.token();
  for (let i = 0; i < 20; i++) {
    const r = await rpc(mcpUrl, token, {
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'message_send', arguments: { target: 'channel:bench', content: `m${i}` } },
    });
    if (r.status !== 200 || r.body.includes('"isError":true'))
      throw new Error(`${label}: message_send failed: ${r.body.slice(0, 300)}`);
  }
  return {
    label,
    daemon,
    runtimes,
    execUrl: `${runtimes[0]!.base}/task/get`,
    execBody,
    mcpUrl,
    tokens: runtimes.map((r) => r.token()),
  };
}

/** The daemon's CPU time so far (user + system), in ms; Linux only (NaN elsewhere). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return NaN;
  }
}

interface Measured extends LoadResult {
  /** Daemon CPU per 1,000 requests, ms. */
  readonly cpuPerK: number;
}

async function measured(s: Side, load: () => Promise<LoadResult>): Promise<Measured> {
  const before = cpuMs(s.daemon.pid);
  const r = await load();
  return { ...r, cpuPerK: ((cpuMs(s.daemon.pid) - before) / Math.max(1, r.total)) * 1000 };
}

const exec = (s: Side, sec: number) =>
  measured(s, () =>
    runLoad({
      url: s.execUrl,
      body: s.execBody,
      headers: JSON_HEADERS,
      tokens: s.tokens,
      connections: CONNECTIONS,
      durationSec: sec,
    }),
  );
const mcp = (s: Side, sec: number) =>
  measured(s, () =>
    runLoad({
      url: s.mcpUrl,
      body: MCP_CALL,
      headers: MCP_HEADERS,
      tokens: s.tokens,
      connections: CONNECTIONS,
      durationSec: sec,
    }),
  );

function clean(r: Measured, what: string): Measured {
  if (r.non2xx + r.errors > 0)
    throw new Error(`${what} saw ${r.non2xx} non-2xx and ${r.errors} errors`);
  return r;
}

export async function run(): Promise<BenchResult[]> {
  const on = await side('on', null);
  const off = await side('off', AUDIT_OFF);
  try {
    for (const s of [on, off]) {
      await exec(s, 1);
      await mcp(s, 1);
    }
    const runs = {
      execOn: [] as Measured[],
      execOff: [] as Measured[],
      mcpOn: [] as Measured[],
      mcpOff: [] as Measured[],
    };
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which side goes first, so neither always follows the other's write backlog.
      const [a, b] = i % 2 === 0 ? [on, off] : [off, on];
      for (const s of [a, b])
        (s === on ? runs.execOn : runs.execOff).push(
          clean(await exec(s, SLICE_SEC), `exec ${s.label}`),
        );
      for (const s of [a, b])
        (s === on ? runs.mcpOn : runs.mcpOff).push(
          clean(await mcp(s, SLICE_SEC), `mcp ${s.label}`),
        );
    }
    const ratio = (xs: Measured[], ys: Measured[], f: (m: Measured) => number) =>
      median(xs.map((x, i) => f(x) / Math.max(1e-9, f(ys[i]!))));
    const at = `${CONNECTIONS} conns, ${ROUNDS} rounds of ${SLICE_SEC}s`;
    const rows = (label: string, on: Measured[], off: Measured[]): BenchResult[] => {
      const r = ratio(on, off, (m) => m.reqPerSec);
      return [
        {
          metric: `${label} req/s, audit on (${at})`,
          value: Math.round(meanLoad(on).reqPerSec),
          unit: 'req/s',
        },
        {
          metric: `${label} req/s, audit off (${at})`,
          value: Math.round(meanLoad(off).reqPerSec),
          unit: 'req/s',
        },
        {
          metric: `${label} req/s, audit on / off (median of rounds)`,
          value: r,
          unit: 'x',
          target: `>= ${TARGET}x`,
          pass: r >= TARGET,
        },
        {
          metric: `${label} daemon CPU per 1k requests, audit on`,
          value: median(on.map((m) => m.cpuPerK)),
          unit: 'ms',
        },
        {
          metric: `${label} daemon CPU per 1k requests, audit off`,
          value: median(off.map((m) => m.cpuPerK)),
          unit: 'ms',
        },
        {
          metric: `${label} daemon CPU per request, audit on / off`,
          value: ratio(on, off, (m) => m.cpuPerK),
          unit: 'x',
        },
        {
          metric: `${label} p99, audit on / off`,
          value: ratio(on, off, (m) => m.p99Ms),
          unit: 'x',
        },
      ];
    };
    return [
      ...rows('Exec task get', runs.execOn, runs.execOff),
      ...rows('MCP message_history_read', runs.mcpOn, runs.mcpOff),
    ];
  } finally {
    for (const s of [on, off]) {
      await Promise.all(s.runtimes.map((r) => r.close()));
      await s.daemon.close();
    }
    closeHttp();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run())
    process.stdout.write(
      `${r.metric}: ${Number.isInteger(r.value) ? r.value : r.value.toFixed(3)} ${r.unit}${r.target ? ` (target ${r.target}: ${r.pass ? 'ok' : 'MISSED'})` : ''}\n`,
    );
}
