import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { BIN, type Daemon } from '../devkit/daemon.js';
import type { StandIn } from './model-standins.js';

/**
 * One check per real client. Each runs under `agentteam run --ttl <short>`,
 * so the daemon rotates the runtime's token every few seconds; the client is
 * used four times, each time on a newer generation than the last, and must
 * succeed every time. A client that reads its header once, at start, gets a
 * TTL longer than its own start-up (a generation expires TTL seconds after
 * it was issued); one that reads the token file per request (the Python
 * check, OpenCode's bridge) gets the shortest. Nothing leaves loopback: every proxy variable points
 * at a closed loopback port and only 127.0.0.1 bypasses it.
 */
export interface CheckContext {
  readonly daemon: Daemon;
  /** Directory of the client's executables (prepended to PATH). */
  readonly binDir: string;
  /** Directory of a Node to put before everything on PATH (a client whose engine range this Node misses). */
  readonly nodeDir?: string;
  /** PYTHONPATH for the Python SDK. */
  readonly pythonPath?: string;
}

export interface CheckResult {
  readonly version: string;
  readonly detail: string;
}

const DEAD_PROXY = 'http://127.0.0.1:9';
export const ROUNDS = 4;

/**
 * Runs `cmd` ROUNDS times; before each round after the first it waits until
 * the daemon has replaced the token file, and prints a checksum of the token
 * the round starts with. `$i` is the round number inside `cmd`.
 */
export function rotationLoop(cmd: string): string {
  return [
    'F="$AGENTTEAM_EXEC_TOKEN_FILE"; prev=',
    `for i in $(seq 1 ${ROUNDS}); do`,
    '  while [ "$(cksum < "$F")" = "$prev" ]; do sleep 0.2; done',
    '  prev=$(cksum < "$F"); echo "interop-token $prev"',
    `  ${cmd} || { echo "interop-failed round $i"; exit 1; }`,
    'done',
  ].join('\n');
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `agentteam run ... -- sh -c script` in a fresh HOME, killed (whole group) after timeoutMs. */
interface RunOptions {
  runtime: string;
  agent: string;
  ttl: number;
  script: string;
  env?: Record<string, string>;
  timeoutMs: number;
  /** Arguments of `run` before `--` (e.g. --prompt). */
  runArgs?: string[];
  /** The command after `--` (default: sh -c script). */
  command?: string[];
  /** Prepares the fresh HOME before the run (the user's own files). */
  setup?: (home: string) => void;
  /** Looks at the HOME after the run, before it is removed. */
  inspect?: (home: string) => Promise<void> | void;
}

/**
 * The environment of a real client: this one's less every model and runtime
 * variable, a fresh HOME (and XDG folders) in `home`, every proxy variable
 * at a closed loopback port, the client's folder (and its Node) first on PATH.
 */
export function isolatedEnv(
  ctx: CheckContext,
  home: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  for (const k of Object.keys(inherited))
    if (/^(ANTHROPIC_|OPENAI_|CODEX_|OPENCODE_|CLAUDE_)/i.test(k) || /_proxy$/i.test(k))
      delete inherited[k];
  return {
    ...inherited,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    HTTP_PROXY: DEAD_PROXY,
    HTTPS_PROXY: DEAD_PROXY,
    ALL_PROXY: DEAD_PROXY,
    http_proxy: DEAD_PROXY,
    https_proxy: DEAD_PROXY,
    all_proxy: DEAD_PROXY,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    PATH: [ctx.nodeDir, ctx.binDir, process.env.PATH ?? ''].filter(Boolean).join(delimiter),
    ...extra,
  };
}

export async function runUnder(ctx: CheckContext, o: RunOptions): Promise<Ran> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-interop-home-'));
  o.setup?.(home);
  const env = { ...isolatedEnv(ctx, home, o.env), AGENTTEAM_HOME: ctx.daemon.home, ...o.env };
  const args = [
    BIN,
    'run',
    '--server',
    'local',
    '--agent',
    o.agent,
    '--runtime',
    o.runtime,
    '--ttl',
    String(o.ttl),
    ...(o.runArgs ?? []),
    '--',
    ...(o.command ?? ['sh', '-c', o.script]),
  ];
  const child = spawn(process.execPath, args, {
    env,
    cwd: home,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => {
    stderr += `\n[interop] killed after ${o.timeoutMs} ms`;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }, o.timeoutMs);
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  clearTimeout(timer);
  try {
    await o.inspect?.(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return { code, stdout, stderr };
}

export function tail(s: string, n = 1500): string {
  return s.length > n ? `...${s.slice(-n)}` : s;
}

export function expectRounds(ran: Ran, what: string): void {
  const tokens = new Set([...ran.stdout.matchAll(/^interop-token (.*)$/gm)].map((m) => m[1]));
  if (ran.code !== 0 || tokens.size < ROUNDS) {
    throw new Error(
      `${what}: exit ${ran.code}, ${tokens.size} token generations\nstdout: ${tail(ran.stdout)}\nstderr: ${tail(ran.stderr)}`,
    );
  }
}

/** The marker contents a stand-in saw come back from message_send, in order. */
export function sentThrough(m: StandIn): string[] {
  return m.results.map(
    (r) => /"content":"(interop-[a-z]+-\d+)"/.exec(r)?.[1] ?? `? ${r.slice(0, 120)}`,
  );
}

export function expectMarkers(got: string[], name: string, ran: Ran): void {
  const want = Array.from({ length: ROUNDS }, (_, i) => `interop-${name}-${i + 1}`);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(
      `expected ${want.join(', ')} to be sent, got [${got.join(', ')}]\nstdout: ${tail(ran.stdout)}\nstderr: ${tail(ran.stderr)}`,
    );
  }
}

export async function versionOf(ctx: CheckContext, cmd: string): Promise<string> {
  const ran = await runUnder(ctx, {
    runtime: 'generic',
    agent: 'version',
    ttl: 60,
    script: cmd,
    timeoutMs: 30_000,
  });
  return ran.stdout.trim().split('\n')[0] ?? '?';
}
