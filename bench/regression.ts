import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, startRuntime, type Daemon, type Runtime } from '../devkit/daemon.js';
import { call, closeHttp } from '../devkit/http.js';
import { rpc } from '../devkit/http.js';
import { CALL, checkPage, HEADERS } from './mcp-throughput.js';
import { AUDIT_OFF, benchHome, runLoad, type LoadResult } from './procs.js';
import { median, type BenchResult } from './result.js';

/**
 * This build against a baseline build, on the two request-path loads:
 * authenticated Exec `task get` (as bench/exec-throughput.ts) and MCP
 * `tools/call message_history_read` (as bench/mcp-throughput.ts), each at 50
 * connections from autocannon in its own process. One daemon of each build
 * runs throughout; every round measures each load on both, alternating which
 * side goes first, and the result is the median over rounds of current /
 * baseline, so load from other work on the machine hits both sides alike.
 * It states no target: a change is read against the build before it, and
 * the project's targets are against anchors outside it (bench/README.md).
 *
 * The baseline is a built checkout: `--baseline <dir>` or BENCH_BASELINE=<dir>
 * (its dist/cli/bin.js is run), or else a commit, `--baseline-commit <commit>`
 * or BENCH_BASELINE_COMMIT (default d25d171, the build before the client
 * tools, the result gate and the fault work), exported from this repository
 * with `git archive` into a temp directory, node_modules linked to this
 * checkout's, and built with `npm run build`. A commit's build is kept in
 * os.tmpdir()/agentteam-baseline-<hash> and reused by later runs.
 * BENCH_ROUNDS (default 5) and BENCH_SLICE (seconds per load and side,
 * default 4) set the length. `--audit off` (or BENCH_AUDIT=off) runs this
 * build's daemon with the audit trail off: the request path alone, for a
 * baseline that has no trail (its cost is measured by audit-overhead).
 */
export const name = 'regression';

export const DEFAULT_BASELINE_COMMIT = 'd25d171';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONNECTIONS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SLICE = Number(process.env.BENCH_SLICE ?? 4);
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The value after `flag` in argv, if given. */
function option(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
  return value;
}

function sh(cmd: string, args: readonly string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error(
      `building a baseline from a commit needs ${cmd}, which is not installed: pass a built checkout with --baseline DIR (or BENCH_BASELINE)`,
    );
  }
  if (r.error) throw r.error;
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/** `git archive <commit> | tar -x -C <dir>`, without a shell. */
function exportCommit(commit: string, dir: string): Promise<void> {
  return new Promise((done, fail) => {
    const git = spawn('git', ['-C', ROOT, 'archive', '--format=tar', commit], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'inherit', 'inherit'] });
    git.stdout.pipe(tar.stdin);
    let left = 2;
    const exited = (what: string) => (code: number | null) => {
      if (code !== 0) return fail(new Error(`${what} exited ${code} while exporting ${commit}`));
      if (--left === 0) done();
    };
    git.once('error', fail).once('exit', exited('git archive'));
    tar.once('error', fail).once('exit', exited('tar'));
  });
}

const BUILT = '.agentteam-baseline-built';

/** A built checkout of `commit`: made once in the temp directory (built beside and renamed into place), then reused. */
export async function buildBaseline(commit: string): Promise<string> {
  const hash = sh('git', ['-C', ROOT, 'rev-parse', '--verify', `${commit}^{commit}`], ROOT);
  const dir = join(tmpdir(), `agentteam-baseline-${hash.slice(0, 12)}`);
  if (existsSync(join(dir, BUILT))) {
    // Its node_modules is a link to the checkout that built it, which may since have gone: link this one's.
    const modules = join(dir, 'node_modules');
    if (!existsSync(modules)) {
      rmSync(modules, { force: true });
      symlinkSync(join(ROOT, 'node_modules'), modules, 'dir');
    }
    return dir;
  }
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    process.stderr.write(
      `bench: regression: building ${commit} (${hash.slice(0, 12)}) in ${dir}\n`,
    );
    await exportCommit(hash, partial);
    symlinkSync(join(ROOT, 'node_modules'), join(partial, 'node_modules'), 'dir');
    // The build's own output goes to stderr: stdout may be the --json table.
    const r = spawnSync('npm', ['run', 'build', '--silent'], {
      cwd: partial,
      stdio: ['ignore', 2, 2],
    });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`npm run build of ${commit} failed (${r.status})`);
    writeFileSync(join(partial, BUILT), `${hash}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
    return dir;
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

/** The baseline's CLI: from a given built checkout, or a commit built here. */
export async function baselineBin(
  argv: readonly string[],
): Promise<{ bin: string; label: string }> {
  const given = option(argv, '--baseline') ?? process.env.BENCH_BASELINE;
  if (given) {
    const bin = join(resolve(given), 'dist', 'cli', 'bin.js');
    if (!existsSync(bin))
      throw new Error(
        `the baseline ${given} is not built: ${bin} does not exist (run npm run build there)`,
      );
    return { bin, label: resolve(given) };
  }
  const commit =
    option(argv, '--baseline-commit') ??
    process.env.BENCH_BASELINE_COMMIT ??
    DEFAULT_BASELINE_COMMIT;
  return { bin: join(await buildBaseline(commit), 'dist', 'cli', 'bin.js'), label: commit };
}

/** One build's daemon, with two runtime authorizations (one may hold only 32 requests in flight) and the data both loads read. */
interface Side {
  readonly daemon: Daemon;
  readonly runtimes: Runtime[];
  readonly exec: { url: string; body: string };
  readonly mcpUrl: string;
  readonly tokens: string[];
}

async function startSide(
  bin: string | undefined,
  sides: Daemon[],
  runtimes: Runtime[],
  audit = true,
): Promise<Side> {
  const home = benchHome('agentteam-d-', audit ? null : AUDIT_OFF);
  const daemon = await startDaemon(bin === undefined ? { home } : { bin, home });
  sides.push(daemon);
  const rts: Runtime[] = [];
  for (let i = 0; i < 2; i++) {
    const rt = await startRuntime(daemon, { server: 'local', agent: 'bench' });
    runtimes.push(rt);
    rts.push(rt);
  }
  const first = rts[0]!;
  const created = await call(first, 'task', 'create', { title: 'bench' });
  if (created.status !== 200)
    throw new Error(`task create failed on ${daemon.bin}: ${created.text}`);
  const body = JSON.stringify({ id: created.json.data.task.id as string });
  const check = await call(first, 'task', 'get', JSON.parse(body));
  if (check.status !== 200) throw new Error(`task get failed on ${daemon.bin}: ${check.text}`);
  const mcpUrl = first.env.AGENTTEAM_MCP_URL ?? '';
  const tokens = rts.map((r) => r.token());
  for (let i = 0; i < 20; i++) {
    await rpc(mcpUrl, tokens[0]!, {
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: {
        name: 'message_send',
        arguments: { target: 'channel:bench', content: `benchmark message ${i}` },
      },
    });
  }
  checkPage(await rpc(mcpUrl, tokens[0]!, JSON.parse(CALL)), daemon.bin ?? 'current');
  return { daemon, runtimes: rts, exec: { url: `${first.base}/task/get`, body }, mcpUrl, tokens };
}

type Kind = 'exec' | 'mcp';
const LABEL: Record<Kind, string> = {
  exec: 'Exec task get',
  mcp: 'MCP tools/call message_history_read',
};

async function load(side: Side, kind: Kind, durationSec: number): Promise<LoadResult> {
  const r =
    kind === 'exec'
      ? await runLoad({
          url: side.exec.url,
          body: side.exec.body,
          headers: JSON_HEADERS,
          tokens: side.tokens,
          connections: CONNECTIONS,
          durationSec,
        })
      : await runLoad({
          url: side.mcpUrl,
          body: CALL,
          headers: HEADERS,
          tokens: side.tokens,
          connections: CONNECTIONS,
          durationSec,
        });
  if (r.non2xx + r.errors > 0)
    throw new Error(`${LABEL[kind]} load saw ${r.non2xx} non-2xx answers and ${r.errors} errors`);
  return r;
}

function loadAverage(): string {
  const out = spawnSync('uptime', { encoding: 'utf8' });
  return out.status === 0 ? (/load averages?: (.*)$/.exec(out.stdout.trim())?.[1] ?? '?') : '?';
}

export async function run(argv: readonly string[] = []): Promise<BenchResult[]> {
  const baseline = await baselineBin(argv);
  const audit = (option(argv, '--audit') ?? process.env.BENCH_AUDIT ?? 'on') !== 'off';
  const daemons: Daemon[] = [];
  const runtimes: Runtime[] = [];
  try {
    const base = await startSide(baseline.bin, daemons, runtimes);
    const current = await startSide(undefined, daemons, runtimes, audit);
    const rows: BenchResult[] = [];
    const ratios: Record<Kind, number[]> = { exec: [], mcp: [] };
    for (const kind of ['exec', 'mcp'] as const) {
      await load(base, kind, 1);
      await load(current, kind, 1);
    }
    process.stderr.write(
      `bench: regression: baseline ${baseline.label}, audit trail ${audit ? 'on' : 'off'} here, ${ROUNDS} rounds of ${SLICE} s per load and side, load average ${loadAverage()}\n`,
    );
    for (let round = 1; round <= ROUNDS; round++) {
      for (const kind of ['exec', 'mcp'] as const) {
        // Alternate which side goes first, so neither always runs on the warmer (or busier) half.
        const order = round % 2 === 1 ? [base, current] : [current, base];
        const results = new Map<Side, LoadResult>();
        for (const side of order) results.set(side, await load(side, kind, SLICE));
        const b = results.get(base)!.reqPerSec;
        const c = results.get(current)!.reqPerSec;
        ratios[kind].push(c / Math.max(1, b));
        rows.push({
          metric: `round ${round} ${LABEL[kind]} baseline req/s`,
          value: Math.round(b),
          unit: 'req/s',
        });
        rows.push({
          metric: `round ${round} ${LABEL[kind]} current req/s`,
          value: Math.round(c),
          unit: 'req/s',
        });
        process.stderr.write(
          `bench: regression: round ${round} ${LABEL[kind]}: baseline ${Math.round(b)} req/s, current ${Math.round(c)} req/s, ${(c / Math.max(1, b)).toFixed(2)}x\n`,
        );
      }
    }
    process.stderr.write(`bench: regression: load average at the end ${loadAverage()}\n`);
    for (const kind of ['exec', 'mcp'] as const) {
      const value = median(ratios[kind]);
      rows.push({
        metric: `${LABEL[kind]} current${audit ? '' : ' (audit off)'} / baseline ${baseline.label} (median of ${ROUNDS} rounds, ${CONNECTIONS} conns)`,
        value,
        unit: 'x',
      });
    }
    return rows;
  } finally {
    await Promise.all(runtimes.map((r) => r.close()));
    closeHttp();
    await Promise.all(daemons.map((d) => d.close()));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run(process.argv.slice(2))) {
    process.stdout.write(
      `${r.metric}: ${Number.isInteger(r.value) ? r.value : r.value.toFixed(2)} ${r.unit}${r.target ? ` (target ${r.target}: ${r.pass ? 'ok' : 'MISSED'})` : ''}\n`,
    );
  }
}
