import { execFile } from 'node:child_process';
import { rmSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { rpc } from '../devkit/http.js';
import type { Daemon } from '../devkit/daemon.js';
import { median, type BenchResult } from './result.js';
import {
  AUDIT_OFF,
  benchHome,
  meanLoad,
  openBenchLeases,
  runLoad,
  startLineServer,
  type LoadResult,
} from './procs.js';

/**
 * What telemetry and the audit trail cost on the request path, in one run,
 * four daemons side by side under the same load (autocannon in its own
 * process, 50 connections, rounds interleaved so machine load hits all
 * alike), each feature added on its own to the build before them:
 * - `before`: the build this work started from (BENCH_BEFORE_DIST, the dist
 *   folder of that build; see bench/history.md, regression, for how to make it), which
 *   has neither;
 * - `unset`: this build with no OTEL_* variable and the audit trail off
 *   (`audit.json` `{"enabled": false}`): what the telemetry code costs when
 *   nothing is configured;
 * - `audit`: the same with the audit trail on, as a daemon starts by default;
 * - `traced`: the trail off, every span exported (parent-based always-on
 *   sampling) and the metrics over OTLP/HTTP (protobuf, the default;
 *   BENCH_OTLP_PROTOCOL=http/json for JSON) to a loopback sink.
 * Workloads: Exec `task get` and MCP tools/call message_history_read.
 * Six rounds of BENCH_DURATION/6 seconds per daemon and workload (default
 * 18 s: 3 s slices); each ratio is the median of the per-round ratios.
 */
export const name = 'telemetry';

const run$ = promisify(execFile);
const HERE_DIST = fileURLToPath(new URL('../', import.meta.url));
const SINK = fileURLToPath(new URL('./otlp-sink.js', import.meta.url));
const CONNECTIONS = 50;
const DURATION = Number(process.env.BENCH_DURATION ?? 18);
const ROUNDS = 6;
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

interface Target {
  readonly label: string;
  readonly daemon: Daemon;
  readonly exec: { url: string; body: string; tokens: string[] };
  readonly mcp: { url: string; tokens: string[] };
}

/** `daemon start` of the build in `dist`, with no OTEL_* variable but those in `env`, and the audit trail on or off. */
async function startBuild(
  dist: string,
  env: Record<string, string>,
  audit: boolean,
): Promise<Daemon> {
  const home = benchHome('agentteam-bench-otel-', audit ? null : AUDIT_OFF);
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('OTEL_')) base[k] = v;
  const full = { ...base, ...env, AGENTTEAM_HOME: home };
  const bin = resolve(dist, 'cli/bin.js');
  const { stdout } = await run$(process.execPath, [bin, 'daemon', 'start'], {
    env: full,
    timeout: 20_000,
  });
  const info = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { url: string; pid: number };
  const cli: Daemon['cli'] = async (args) => {
    const r = await run$(process.execPath, [bin, ...args], { env: full, timeout: 20_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    home,
    url: info.url,
    pid: info.pid,
    cli,
    async close() {
      await cli(['daemon', 'stop']).catch(() => undefined);
      try {
        process.kill(info.pid, 'SIGKILL');
      } catch {
        // stopped
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function prepare(
  label: string,
  daemon: Daemon,
  leases: { close(): void }[],
): Promise<Target> {
  // Two leases each: one authorization holds at most 32 requests in flight, the load keeps 50.
  const { tokens, url } = await openBenchLeases(daemon, 2, leases);
  const execBase = url.replace('/api/internal/mcp/', '/api/internal/exec/');
  const created = await fetch(`${execBase}/task/create`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${tokens[0]}` },
    body: JSON.stringify({ title: 'bench' }),
  });
  const task = ((await created.json()) as { data: { task: { id: string } } }).data.task.id;
  for (let i = 0; i < 20; i++) {
    const sent = await rpc(url, tokens[0]!, {
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: {
        name: 'message_send',
        arguments: { target: 'channel:bench', content: `message ${i}` },
      },
    });
    if (sent.status !== 200)
      throw new Error(`${label}: message_send failed: ${sent.body.slice(0, 200)}`);
  }
  return {
    label,
    daemon,
    exec: { url: `${execBase}/task/get`, body: JSON.stringify({ id: task }), tokens },
    mcp: { url, tokens },
  };
}

const execLoad = (t: Target, sec: number) =>
  runLoad({
    url: t.exec.url,
    body: t.exec.body,
    headers: JSON_HEADERS,
    tokens: t.exec.tokens,
    connections: CONNECTIONS,
    durationSec: sec,
  });
const mcpLoad = (t: Target, sec: number) =>
  runLoad({
    url: t.mcp.url,
    body: MCP_CALL,
    headers: MCP_HEADERS,
    tokens: t.mcp.tokens,
    connections: CONNECTIONS,
    durationSec: sec,
  });

export async function run(): Promise<BenchResult[]> {
  const beforeDist = process.env.BENCH_BEFORE_DIST;
  if (beforeDist !== undefined && !existsSync(resolve(beforeDist, 'cli/bin.js')))
    throw new Error(`BENCH_BEFORE_DIST=${beforeDist} holds no cli/bin.js`);
  const sink = await startLineServer(SINK, 'OTLP sink');
  const leases: { close(): void }[] = [];
  const daemons: Daemon[] = [];
  try {
    const start = async (
      label: string,
      dist: string,
      env: Record<string, string>,
      audit = false,
    ) => {
      const d = await startBuild(dist, env, audit);
      daemons.push(d);
      return prepare(label, d, leases);
    };
    const targets: Target[] = [];
    if (beforeDist) targets.push(await start('before', beforeDist, {}));
    targets.push(await start('unset', HERE_DIST, {}));
    targets.push(await start('audit', HERE_DIST, {}, true));
    targets.push(
      await start('traced', HERE_DIST, {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
        ...(process.env.BENCH_OTLP_PROTOCOL
          ? { OTEL_EXPORTER_OTLP_PROTOCOL: process.env.BENCH_OTLP_PROTOCOL }
          : {}),
      }),
    );
    for (const t of targets) {
      await execLoad(t, 1);
      await mcpLoad(t, 1);
    }
    const runs = new Map<string, { exec: LoadResult[]; mcp: LoadResult[] }>(
      targets.map((t) => [t.label, { exec: [], mcp: [] }]),
    );
    const slice = DURATION / ROUNDS;
    for (let i = 0; i < ROUNDS; i++) {
      // Each round in a rotated order, so no configuration always runs first.
      const order = targets.map((_, k) => targets[(k + i) % targets.length]!);
      for (const t of order) runs.get(t.label)!.exec.push(await execLoad(t, slice));
      for (const t of order) runs.get(t.label)!.mcp.push(await mcpLoad(t, slice));
    }
    const rows: BenchResult[] = [];
    const mean = new Map(
      [...runs].map(([label, r]) => [label, { exec: meanLoad(r.exec), mcp: meanLoad(r.mcp) }]),
    );
    for (const [label, m] of mean) {
      for (const [kind, r] of [
        ['Exec task get', m.exec],
        ['MCP tools/call message_history_read', m.mcp],
      ] as const) {
        if (r.non2xx + r.errors > 0)
          throw new Error(`${label} ${kind}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        rows.push({
          metric: `[${label}] ${kind} req/s (${CONNECTIONS} conns)`,
          value: Math.round(r.reqPerSec),
          unit: 'req/s',
        });
        rows.push({ metric: `[${label}] ${kind} p99`, value: r.p99Ms, unit: 'ms' });
      }
    }
    const baseName = mean.has('before') ? 'before' : 'unset';
    const ratios = [
      ...(baseName === 'before' ? [['unset', 'telemetry unset, audit off', 0.97] as const] : []),
      ['audit', 'audit trail on, telemetry unset', 0.9],
      ['traced', 'traced to loopback, audit off', 0.8],
    ] as const;
    // Each round ran every daemon back to back: the median of the per-round ratios cancels the VM's
    // drift over minutes, which moved a whole run's means by ±10 % between runs.
    const baseRuns = runs.get(baseName)!;
    for (const kind of ['exec', 'mcp'] as const) {
      const what = kind === 'exec' ? 'Exec' : 'MCP';
      for (const [label, text, target] of ratios) {
        const r = median(
          runs.get(label)![kind].map((x, i) => x.reqPerSec / baseRuns[kind][i]!.reqPerSec),
        );
        rows.push({
          metric: `${what}: ${text} / ${baseName} (median of ${ROUNDS} rounds)`,
          value: r,
          unit: 'x',
          // A target holds against this build without the feature, not against an older build of ours.
          ...(baseName === 'unset' ? { target: `>= ${target}x`, pass: r >= target } : {}),
        });
      }
    }
    return rows;
  } finally {
    for (const l of leases) l.close();
    await Promise.all(daemons.map((d) => d.close()));
    sink.proc.kill('SIGTERM');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run())
    process.stdout.write(
      `${r.metric}: ${Number.isInteger(r.value) ? r.value : r.value.toFixed(2)} ${r.unit}${r.target ? ` (target ${r.target}: ${r.pass ? 'ok' : 'MISSED'})` : ''}\n`,
    );
}
