import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openLease } from '../devkit/lease.js';
import { rpc, post } from '../devkit/http.js';
import { median, type BenchResult } from './result.js';
import { meanLoad, runLoad, type LoadResult } from './procs.js';

/**
 * What the result gate's masking costs, against a baseline in the same run:
 * - Exec `task get` req/s on a daemon with 20 credential variables configured
 *   vs one with none (both always mask their operator token and runtime
 *   tokens), loads alternating so machine noise hits both alike;
 * - a declared `command` tool's round trip (spawn, stdin, said) vs the
 *   built-in `message_history_read`, sequential MCP calls, reported only.
 */
export const name = 'results-mask';

const BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
const execFileP = promisify(execFile);
const CONNECTIONS = 50;
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const HEADERS = { 'content-type': 'application/json' };
const MCP_HEADERS = { 'mcp-protocol-version': '2025-11-25' };

interface Home {
  home: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function daemon(
  env: Record<string, string>,
  tools: Record<string, unknown> = {},
): Promise<Home> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-bench-mask-'));
  mkdirSync(join(home, 'tools'));
  for (const [n, v] of Object.entries(tools))
    writeFileSync(join(home, 'tools', n), JSON.stringify(v));
  const full = { ...process.env, ...env, AGENTTEAM_HOME: home };
  const { stdout } = await execFileP(process.execPath, [BIN, 'daemon', 'start'], {
    env: full,
    timeout: 20_000,
  });
  const { url, pid } = JSON.parse(stdout.trim().split('\n').pop() ?? '') as {
    url: string;
    pid: number;
  };
  return {
    home,
    url,
    pid,
    async stop() {
      await execFileP(process.execPath, [BIN, 'daemon', 'stop'], {
        env: full,
        timeout: 20_000,
      }).catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function taskGetTarget(
  d: Home,
): Promise<{ url: string; body: string; tokens: string[]; close(): void }> {
  const leases = [
    await openLease(d as never, { serverId: 'bench', agentId: 'b1' }),
    await openLease(d as never, { serverId: 'bench', agentId: 'b1' }),
  ];
  const base = (leases[0]!.data as unknown as { execBaseUrl: string }).execBaseUrl;
  const created = await post(
    `${base}/task/create`,
    leases[0]!.token(),
    JSON.stringify({ title: 'bench task' }),
  );
  const body = JSON.stringify({ id: created.json.data.task.id as string });
  const check = await post(`${base}/task/get`, leases[0]!.token(), body);
  if (check.status !== 200) throw new Error(`task get failed: ${check.text}`);
  return {
    url: `${base}/task/get`,
    body,
    tokens: leases.map((l) => l.token()),
    close: () => {
      for (const l of leases) l.close();
    },
  };
}

/** A process's user + system CPU time in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function roundTrips(
  mcpUrl: string,
  token: string,
  tool: string,
  args: unknown,
): Promise<number> {
  const msg = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: tool, arguments: args },
  });
  const first = await rpc(mcpUrl, token, msg(0), MCP_HEADERS);
  if (first.status !== 200 || JSON.parse(first.body).result?.isError)
    throw new Error(`${tool} failed: ${first.body.slice(0, 300)}`);
  const times: number[] = [];
  for (let i = 1; i <= CALLS; i++) {
    const t0 = process.hrtime.bigint();
    await rpc(mcpUrl, token, msg(i), MCP_HEADERS);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

export async function run(): Promise<BenchResult[]> {
  const secrets: Record<string, string> = {};
  for (let i = 1; i <= Number(process.env.BENCH_SECRETS ?? 20); i++)
    secrets[`BENCH_SERVICE_${String(i).padStart(2, '0')}_TOKEN`] =
      randomBytes(24).toString('base64url');
  const echo = {
    name: 'bench_echo',
    description: 'prints ok',
    needs: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    transport: { type: 'command', argv: ['printf', 'ok'] },
  };
  const plain = await daemon({});
  const masked = await daemon(secrets, { 'echo.json': echo });
  try {
    const a = await taskGetTarget(plain);
    const b = await taskGetTarget(masked);
    const cfg = (x: typeof a, durationSec: number) => ({
      url: x.url,
      body: x.body,
      headers: HEADERS,
      tokens: x.tokens,
      connections: CONNECTIONS,
      durationSec,
    });
    await runLoad(cfg(a, 1));
    await runLoad(cfg(b, 1));
    const noneRuns: LoadResult[] = [];
    const cpu = new Map<Home, number>();
    const twentyRuns: LoadResult[] = [];
    // Short alternating rounds, each side first in turn, so machine load hits both alike.
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? [b, a] : [a, b];
      for (const x of order) {
        const d = x === b ? masked : plain;
        const before = cpuMs(d.pid);
        const r = await runLoad(cfg(x, DURATION / ROUNDS));
        cpu.set(d, (cpu.get(d) ?? 0) + cpuMs(d.pid) - before);
        (x === b ? twentyRuns : noneRuns).push(r);
      }
    }
    const none = meanLoad(noneRuns);
    const twenty = meanLoad(twentyRuns);
    if (none.non2xx + none.errors + twenty.non2xx + twenty.errors > 0)
      throw new Error('the task get load saw failures');
    a.close();
    b.close();

    const lease = await openLease(masked as never, { serverId: 'bench', agentId: 'b2' });
    await rpc(
      lease.mcpUrl,
      lease.token(),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'message_send', arguments: { target: 'channel:bench', content: 'hello' } },
      },
      MCP_HEADERS,
    );
    const builtin = await roundTrips(lease.mcpUrl, lease.token(), 'message_history_read', {
      target: 'channel:bench',
      limit: 20,
    });
    const declared = await roundTrips(lease.mcpUrl, lease.token(), 'bench_echo', {});
    lease.close();

    const ratio = twenty.reqPerSec / Math.max(1, none.reqPerSec);
    // Daemon CPU per request is what masking adds to; it is far less sensitive to other load on the machine than req/s.
    const served = (runs: LoadResult[]) => runs.reduce((n, r) => n + r.total, 0);
    const usNone = ((cpu.get(plain) ?? 0) * 1000) / Math.max(1, served(noneRuns));
    const usTwenty = ((cpu.get(masked) ?? 0) * 1000) / Math.max(1, served(twentyRuns));
    return [
      {
        metric: `task get req/s, ${CONNECTIONS} conns, 20 secrets configured`,
        value: Math.round(twenty.reqPerSec),
        unit: 'req/s',
      },
      {
        metric: `task get req/s, ${CONNECTIONS} conns, no secrets configured`,
        value: Math.round(none.reqPerSec),
        unit: 'req/s',
      },
      {
        metric: 'task get req/s, 20 secrets / none',
        value: ratio,
        unit: 'x',
        target: '>= 0.95x',
        pass: ratio >= 0.95,
      },
      { metric: 'daemon CPU per task get, no secrets', value: usNone, unit: 'us' },
      { metric: 'daemon CPU per task get, 20 secrets', value: usTwenty, unit: 'us' },
      {
        metric: 'task get capacity by daemon CPU, 20 secrets / none',
        value: usNone / usTwenty,
        unit: 'x',
        target: '>= 0.95x',
        pass: usNone / usTwenty >= 0.95,
      },
      {
        metric: `declared command tool round trip (median of ${CALLS})`,
        value: declared,
        unit: 'ms',
      },
      {
        metric: `message_history_read round trip (median of ${CALLS})`,
        value: builtin,
        unit: 'ms',
      },
      {
        metric: 'declared command / message_history_read round trip',
        value: declared / builtin,
        unit: 'x',
      },
    ];
  } finally {
    await plain.stop();
    await masked.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run())
    process.stdout.write(
      `${r.metric}: ${Number.isInteger(r.value) ? r.value : r.value.toFixed(2)} ${r.unit}${r.target ? ` (target ${r.target}: ${r.pass ? 'ok' : 'MISSED'})` : ''}\n`,
    );
}
