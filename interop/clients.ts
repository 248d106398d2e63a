import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, type Daemon } from '../test/harness/daemon.js';
import { startAnthropicStandIn, startOpenAIStandIn, type StandIn } from './model-standins.js';

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
const ROUNDS = 4;
const PY_CLIENT = fileURLToPath(new URL('../../interop/python-client.py', import.meta.url));
const STDIO_PROBE = fileURLToPath(new URL('./stdio-probe.js', import.meta.url));
const CONFORMANCE_PROXY = fileURLToPath(new URL('./conformance-proxy.js', import.meta.url));

/**
 * Runs `cmd` ROUNDS times; before each round after the first it waits until
 * the daemon has replaced the token file, and prints a checksum of the token
 * the round starts with. `$i` is the round number inside `cmd`.
 */
function rotationLoop(cmd: string): string {
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

export async function runUnder(ctx: CheckContext, o: RunOptions): Promise<Ran> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-interop-home-'));
  o.setup?.(home);
  const inherited = { ...process.env };
  for (const k of Object.keys(inherited)) if (/^(ANTHROPIC_|OPENAI_|CODEX_|OPENCODE_|CLAUDE_)/i.test(k) || /_proxy$/i.test(k)) delete inherited[k];
  const env = {
    ...inherited,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    HTTP_PROXY: DEAD_PROXY, HTTPS_PROXY: DEAD_PROXY, ALL_PROXY: DEAD_PROXY,
    http_proxy: DEAD_PROXY, https_proxy: DEAD_PROXY, all_proxy: DEAD_PROXY,
    NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
    PATH: [ctx.nodeDir, ctx.binDir, process.env.PATH ?? ''].filter(Boolean).join(delimiter),
    AGENTTEAM_HOME: ctx.daemon.home,
    ...o.env,
  };
  const args = [BIN, 'run', '--server', 'local', '--agent', o.agent, '--runtime', o.runtime, '--ttl', String(o.ttl), ...(o.runArgs ?? []), '--', ...(o.command ?? ['sh', '-c', o.script])];
  const child = spawn(process.execPath, args, { env, cwd: home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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

function expectRounds(ran: Ran, what: string): void {
  const tokens = new Set([...ran.stdout.matchAll(/^interop-token (.*)$/gm)].map((m) => m[1]));
  if (ran.code !== 0 || tokens.size < ROUNDS) {
    throw new Error(`${what}: exit ${ran.code}, ${tokens.size} token generations\nstdout: ${tail(ran.stdout)}\nstderr: ${tail(ran.stderr)}`);
  }
}

/** The marker contents a stand-in saw come back from message_send, in order. */
function sentThrough(m: StandIn): string[] {
  return m.results.map((r) => /"content":"(interop-[a-z]+-\d+)"/.exec(r)?.[1] ?? `? ${r.slice(0, 120)}`);
}

function expectMarkers(got: string[], name: string, ran: Ran): void {
  const want = Array.from({ length: ROUNDS }, (_, i) => `interop-${name}-${i + 1}`);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`expected ${want.join(', ')} to be sent, got [${got.join(', ')}]\nstdout: ${tail(ran.stdout)}\nstderr: ${tail(ran.stderr)}`);
  }
}

export async function versionOf(ctx: CheckContext, cmd: string): Promise<string> {
  const ran = await runUnder(ctx, { runtime: 'generic', agent: 'version', ttl: 60, script: cmd, timeoutMs: 30_000 });
  return ran.stdout.trim().split('\n')[0] ?? '?';
}

export async function checkPython(ctx: CheckContext): Promise<CheckResult> {
  const py = (mode: string) => `python3 ${JSON.stringify(PY_CLIENT)} "$AGENTTEAM_MCP_URL" "$AGENTTEAM_EXEC_TOKEN_FILE" ${mode} ${ROUNDS}`;
  const ran = await runUnder(ctx, {
    runtime: 'generic', agent: 'python', ttl: 3, script: `${py('auto')} && ${py('legacy')}`,
    env: { PYTHONPATH: ctx.pythonPath ?? '' }, timeoutMs: 120_000,
  });
  const lines = ran.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  const fail = (why: string) => new Error(`${why}\nstdout: ${tail(ran.stdout)}\nstderr: ${tail(ran.stderr)}`);
  if (ran.code !== 0) throw fail(`exit ${ran.code}`);
  const meta = lines.find((l) => l.missingMeta)?.missingMeta;
  if (meta?.status !== 400 || meta?.error?.code !== -32602) throw fail('a 2026-07-28 request without _meta did not get -32602');
  const rounds = lines.filter((l) => l.round);
  for (const [version, prefix] of [['2026-07-28', 'pythonauto'], ['2025-11-25', 'pythonlegacy']] as const) {
    const mine = rounds.filter((r) => String(r.sent).startsWith(`interop-${prefix}-`));
    if (mine.length !== ROUNDS || mine.some((r) => r.protocolVersion !== version || r.isError || !r.tools.includes('message_send'))) {
      throw fail(`${version}: expected ${ROUNDS} good rounds`);
    }
  }
  if (lines.filter((l) => l.done && l.distinctTokens === ROUNDS).length !== 2) throw fail('rounds did not each use a new token generation');
  return {
    version: `mcp ${lines[0]?.sdk} (Python ${lines[0]?.python})`,
    detail: `2026-07-28 via server/discover and forced 2025-11-25 (initialize): list + message_send on one connection over ${ROUNDS} generations each; no-_meta request -> -32602`,
  };
}

export async function checkClaude(ctx: CheckContext): Promise<CheckResult> {
  const m = await startAnthropicStandIn();
  try {
    const ran = await runUnder(ctx, {
      runtime: 'claude', agent: 'claude', ttl: 8, timeoutMs: 180_000,
      script: rotationLoop('claude -p "Send interop-claude-$i" --allowedTools mcp__agentteam__message_send --model sonnet < /dev/null'),
      env: {
        ANTHROPIC_BASE_URL: m.url, ANTHROPIC_API_KEY: 'sk-interop-stand-in', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', ENABLE_TOOL_SEARCH: 'false',
      },
    });
    expectRounds(ran, 'claude');
    expectMarkers(sentThrough(m), 'claude', ran);
    return {
      version: await versionOf(ctx, 'claude --version'),
      detail: `agentteam run --runtime claude -- sh -c '... claude -p ...' (PATH shim): mcp__agentteam__message_send ran ${ROUNDS} times, each on a new generation`,
    };
  } finally {
    await m.close();
  }
}

/** A user's own Codex home: a provider pointing at the stand-in, an approval setting, a model; nothing of agentteam's. */
export function userCodexConfig(standInUrl: string, extra = ''): string {
  return [
    '# The interop user\'s own Codex configuration; agentteam must leave it as it is.',
    'model_provider = "standin"',
    'model = "gpt-5"',
    'approval_policy = "never"',
    'developer_instructions = "interop-user-instructions: answer briefly."',
    extra,
    '[model_providers.standin]',
    'name = "standin"',
    `base_url = "${standInUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "INTEROP_STANDIN_KEY"',
    '',
  ].join('\n');
}

/** The text of every developer/system item a Responses request carried, and its instructions. */
export function instructionsOf(body: any): string {
  const items: any[] = Array.isArray(body?.input) ? body.input : [];
  const dev = items.filter((i) => i?.role === 'developer' || i?.role === 'system').map((i) => text(i.content));
  return [text(body?.instructions ?? ''), ...dev].join('\n');
}

const text = (x: unknown): string => (typeof x === 'string' ? x : JSON.stringify(x ?? ''));

/** Rollout transcripts under a Codex home's sessions/ folder. */
function transcriptsIn(codexHome: string): string[] {
  const dir = join(codexHome, 'sessions');
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /rollout-.*\.jsonl$/.test(f)).map((f) => join(dir, f));
}

export async function checkCodex(ctx: CheckContext): Promise<CheckResult> {
  const m = await startOpenAIStandIn();
  try {
    // No -c flag of our own: provider, model and approval policy come from the user's config.toml,
    // agentteam's server, header helper, tool approval mode and guidance from the driver.
    const cmd = 'codex exec --skip-git-repo-check "Send interop-codex-$i" < /dev/null';
    const configText = userCodexConfig(m.url);
    let after = '';
    let transcripts: string[] = [];
    let analyzed: any = null;
    const ran = await runUnder(ctx, {
      runtime: 'codex', agent: 'codex', ttl: 6, timeoutMs: 180_000, script: rotationLoop(cmd), env: { INTEROP_STANDIN_KEY: 'sk-interop-stand-in' },
      setup: (home) => {
        mkdirSync(join(home, '.codex'), { recursive: true });
        writeFileSync(join(home, '.codex', 'config.toml'), configText);
      },
      inspect: async (home) => {
        after = readFileSync(join(home, '.codex', 'config.toml'), 'utf8');
        transcripts = transcriptsIn(join(home, '.codex'));
        if (transcripts[0]) {
          const r = await ctx.daemon.cli(['token', 'analyze', '--runtime', 'codex', '--session', transcripts[0], '--json']);
          analyzed = r.code === 0 ? JSON.parse(r.stdout) : { failed: r };
        }
      },
    });
    expectRounds(ran, 'codex');
    expectMarkers(sentThrough(m), 'codex', ran);
    if (after !== configText) throw new Error(`the user's config.toml changed during the run:\n${after}`);
    const requests = m.seen.filter((x) => x.path.endsWith('/responses'));
    const guided = requests.filter((x) => {
      const ins = instructionsOf(x.body);
      return ins.includes('# AgentTeam tools') && ins.includes('mcp__agentteam__message_send') && ins.includes('interop-user-instructions');
    });
    if (requests.length === 0 || guided.length !== requests.length) {
      throw new Error(`${guided.length} of ${requests.length} model requests carried the user's instructions and agentteam's guidance\n${tail(instructionsOf(requests[0]?.body), 800)}`);
    }
    if (transcripts.length < ROUNDS) throw new Error(`${transcripts.length} Codex transcripts in the user's sessions folder after the run, not ${ROUNDS}`);
    const sent = analyzed?.session?.tools?.find?.((x: any) => x.name === 'message_send');
    if (!sent || sent.calls < 1) throw new Error(`token analyze --session did not count message_send in ${transcripts[0]}: ${JSON.stringify(analyzed).slice(0, 600)}`);
    return {
      version: await versionOf(ctx, 'codex --version'),
      detail: `agentteam run --runtime codex -- sh -c 'codex exec ...' (PATH shim, -c layer over the user's config.toml, which stayed byte-identical): ` +
        `the user's provider served ${requests.length} requests, each with the user's instructions and agentteam's guidance; mcp__agentteam__message_send ran ${ROUNDS} times, ` +
        `each on a new generation, with no flag for approval; ${transcripts.length} transcripts left in the user's sessions/, token analyze --session counted ${sent.calls} message_send call(s)`,
    };
  } finally {
    await m.close();
  }
}

export async function checkOpencode(ctx: CheckContext): Promise<CheckResult> {
  const ran = await runUnder(ctx, {
    runtime: 'opencode', agent: 'opencode', ttl: 4, timeoutMs: 300_000,
    script: rotationLoop('opencode mcp list < /dev/null'),
    env: { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' },
  });
  expectRounds(ran, 'opencode');
  const plain = ran.stdout.replace(/\u001b\[[0-9;]*m/g, '');
  const ok = [...plain.matchAll(/agentteam\s+connected/g)].length;
  if (ok !== ROUNDS) throw new Error(`opencode mcp list showed agentteam connected ${ok} times, not ${ROUNDS}\n${tail(plain)}\n${tail(ran.stderr)}`);
  return {
    version: await versionOf(ctx, 'opencode --version'),
    detail: `agentteam run --runtime opencode -- opencode mcp list: agentteam connected (stdio bridge) ${ROUNDS} times, each on a new generation`,
  };
}

export async function checkMcpRemote(ctx: CheckContext, version: string): Promise<CheckResult> {
  // mcp-remote takes its header once, at start: each round starts a new bridge with the current token.
  const cmd = `node ${JSON.stringify(STDIO_PROBE)} interop-mcpremote-$i -- mcp-remote "$AGENTTEAM_MCP_URL" --transport http-only --header "Authorization:Bearer $(cat "$F")"`;
  const ran = await runUnder(ctx, { runtime: 'generic', agent: 'mcpremote', ttl: 10, timeoutMs: 180_000, script: rotationLoop(cmd) });
  expectRounds(ran, 'mcp-remote');
  const sent = [...ran.stdout.matchAll(/^\{.*\}$/gm)].map((l) => (JSON.parse(l[0]) as { sent: string | null }).sent ?? '?');
  expectMarkers(sent, 'mcpremote', ran);
  return { version: `mcp-remote ${version}`, detail: `stdio bridge driven by the TypeScript SDK client: list + message_send, ${ROUNDS} bridges on ${ROUNDS} generations` };
}

export async function checkInspector(ctx: CheckContext, version: string): Promise<CheckResult> {
  const cmd = 'mcp-inspector --cli --server-url "$AGENTTEAM_MCP_URL" --transport http --header "Authorization: Bearer $(cat "$F")" ' +
    '--method tools/call --tool-name message_send --tool-arg target=channel:interop --tool-arg content=interop-inspector-$i';
  const ran = await runUnder(ctx, { runtime: 'generic', agent: 'inspector', ttl: 10, timeoutMs: 180_000, script: rotationLoop(cmd) });
  expectRounds(ran, 'inspector');
  const sent = [...ran.stdout.matchAll(/interop-inspector-\d+/g)].map((m) => m[0]);
  expectMarkers([...new Set(sent)], 'inspector', ran);
  return { version: `@modelcontextprotocol/inspector ${version}`, detail: `--cli tools/call message_send, ${ROUNDS} calls on ${ROUNDS} generations` };
}

/**
 * The MCP conformance suite's server scenarios that apply to a server that
 * offers tools only (no resources, prompts, logging or completion): the
 * 2025 handshake, ping, tools/list and DNS-rebinding protection; each round
 * on a new token generation, through the auth-adding proxy above.
 */
export const CONFORMANCE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

export async function checkConformance(ctx: CheckContext, version: string): Promise<CheckResult> {
  const scenarios = CONFORMANCE_SCENARIOS.map((s) =>
    `conformance server --url "http://localhost:$PORT/mcp" --scenario ${s} > "$OUT" 2>&1 || { cat "$OUT"; exit 1; }; ` +
    `grep -q "0 failed" "$OUT" || { cat "$OUT"; exit 1; }; echo "interop-conformance-$i-${s}"`).join('; ');
  const setup = [
    'PF=$(mktemp); OUT=$(mktemp)',
    `node ${JSON.stringify(CONFORMANCE_PROXY)} "$AGENTTEAM_MCP_URL" "$AGENTTEAM_EXEC_TOKEN_FILE" "$PF" & PROXY=$!`,
    'trap \'kill $PROXY 2>/dev/null\' EXIT',
    'while [ ! -s "$PF" ]; do sleep 0.1; done; PORT=$(cat "$PF")',
  ].join('\n');
  const ran = await runUnder(ctx, { runtime: 'generic', agent: 'conformance', ttl: 10, timeoutMs: 300_000, script: `${setup}\n${rotationLoop(scenarios)}` });
  expectRounds(ran, 'conformance');
  const passed = new Set([...ran.stdout.matchAll(/interop-conformance-\d+-[a-z-]+/g)].map((m) => m[0]));
  if (passed.size !== ROUNDS * CONFORMANCE_SCENARIOS.length) {
    throw new Error(`conformance: ${passed.size} of ${ROUNDS * CONFORMANCE_SCENARIOS.length} scenario runs passed\n${tail(ran.stdout)}\n${tail(ran.stderr)}`);
  }
  return { version: `@modelcontextprotocol/conformance ${version}`, detail: `server scenarios ${CONFORMANCE_SCENARIOS.join(', ')}, each on ${ROUNDS} generations` };
}
