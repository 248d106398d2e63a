import { fileURLToPath } from 'node:url';
import { startAnthropicStandIn } from './model-standins.js';
import {
  expectMarkers,
  expectRounds,
  ROUNDS,
  rotationLoop,
  runUnder,
  sentThrough,
  tail,
  versionOf,
  type CheckContext,
  type CheckResult,
} from './run-under.js';

/** The checks of the other real clients (Codex has its own file), each run as run-under.ts describes. */

const PY_CLIENT = fileURLToPath(new URL('../../interop/python-client.py', import.meta.url));
const STDIO_PROBE = fileURLToPath(new URL('./stdio-probe.js', import.meta.url));
const CONFORMANCE_PROXY = fileURLToPath(new URL('./conformance-proxy.js', import.meta.url));

export async function checkPython(ctx: CheckContext): Promise<CheckResult> {
  const py = (mode: string) =>
    `python3 ${JSON.stringify(PY_CLIENT)} "$AGENTTEAM_MCP_URL" "$AGENTTEAM_EXEC_TOKEN_FILE" ${mode} ${ROUNDS}`;
  const ran = await runUnder(ctx, {
    runtime: 'generic',
    agent: 'python',
    ttl: 3,
    script: `${py('auto')} && ${py('legacy')}`,
    env: { PYTHONPATH: ctx.pythonPath ?? '' },
    timeoutMs: 120_000,
  });
  const lines = ran.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
  const fail = (why: string) =>
    new Error(`${why}\nstdout: ${tail(ran.stdout)}\nstderr: ${tail(ran.stderr)}`);
  if (ran.code !== 0) throw fail(`exit ${ran.code}`);
  const meta = lines.find((l) => l.missingMeta)?.missingMeta;
  if (meta?.status !== 400 || meta?.error?.code !== -32602)
    throw fail('a 2026-07-28 request without _meta did not get -32602');
  const rounds = lines.filter((l) => l.round);
  for (const [version, prefix] of [
    ['2026-07-28', 'pythonauto'],
    ['2025-11-25', 'pythonlegacy'],
  ] as const) {
    const mine = rounds.filter((r) => String(r.sent).startsWith(`interop-${prefix}-`));
    if (
      mine.length !== ROUNDS ||
      mine.some(
        (r) => r.protocolVersion !== version || r.isError || !r.tools.includes('message_send'),
      )
    ) {
      throw fail(`${version}: expected ${ROUNDS} good rounds`);
    }
  }
  if (lines.filter((l) => l.done && l.distinctTokens === ROUNDS).length !== 2)
    throw fail('rounds did not each use a new token generation');
  return {
    version: `mcp ${lines[0]?.sdk} (Python ${lines[0]?.python})`,
    detail: `2026-07-28 via server/discover and forced 2025-11-25 (initialize): list + message_send on one connection over ${ROUNDS} generations each; no-_meta request -> -32602`,
  };
}

export async function checkClaude(ctx: CheckContext): Promise<CheckResult> {
  const m = await startAnthropicStandIn();
  try {
    const ran = await runUnder(ctx, {
      runtime: 'claude',
      agent: 'claude',
      ttl: 8,
      timeoutMs: 180_000,
      script: rotationLoop(
        'claude -p "Send interop-claude-$i" --allowedTools mcp__agentteam__message_send --model sonnet < /dev/null',
      ),
      env: {
        ANTHROPIC_BASE_URL: m.url,
        ANTHROPIC_API_KEY: 'sk-interop-stand-in',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        ENABLE_TOOL_SEARCH: 'false',
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

export async function checkOpencode(ctx: CheckContext): Promise<CheckResult> {
  const ran = await runUnder(ctx, {
    runtime: 'opencode',
    agent: 'opencode',
    ttl: 4,
    timeoutMs: 300_000,
    script: rotationLoop('opencode mcp list < /dev/null'),
    env: {
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    },
  });
  expectRounds(ran, 'opencode');
  const plain = ran.stdout.replace(/\u001b\[[0-9;]*m/g, '');
  const ok = [...plain.matchAll(/agentteam\s+connected/g)].length;
  if (ok !== ROUNDS)
    throw new Error(
      `opencode mcp list showed agentteam connected ${ok} times, not ${ROUNDS}\n${tail(plain)}\n${tail(ran.stderr)}`,
    );
  return {
    version: await versionOf(ctx, 'opencode --version'),
    detail: `agentteam run --runtime opencode -- opencode mcp list: agentteam connected (stdio bridge) ${ROUNDS} times, each on a new generation`,
  };
}

export async function checkMcpRemote(ctx: CheckContext, version: string): Promise<CheckResult> {
  // mcp-remote takes its header once, at start: each round starts a new bridge with the current token.
  const cmd = `node ${JSON.stringify(STDIO_PROBE)} interop-mcpremote-$i -- mcp-remote "$AGENTTEAM_MCP_URL" --transport http-only --header "Authorization:Bearer $(cat "$F")"`;
  const ran = await runUnder(ctx, {
    runtime: 'generic',
    agent: 'mcpremote',
    ttl: 10,
    timeoutMs: 180_000,
    script: rotationLoop(cmd),
  });
  expectRounds(ran, 'mcp-remote');
  const sent = [...ran.stdout.matchAll(/^\{.*\}$/gm)].map(
    (l) => (JSON.parse(l[0]) as { sent: string | null }).sent ?? '?',
  );
  expectMarkers(sent, 'mcpremote', ran);
  return {
    version: `mcp-remote ${version}`,
    detail: `stdio bridge driven by the TypeScript SDK client: list + message_send, ${ROUNDS} bridges on ${ROUNDS} generations`,
  };
}

export async function checkInspector(ctx: CheckContext, version: string): Promise<CheckResult> {
  const cmd =
    'mcp-inspector --cli --server-url "$AGENTTEAM_MCP_URL" --transport http --header "Authorization: Bearer $(cat "$F")" ' +
    '--method tools/call --tool-name message_send --tool-arg target=channel:interop --tool-arg content=interop-inspector-$i';
  const ran = await runUnder(ctx, {
    runtime: 'generic',
    agent: 'inspector',
    ttl: 10,
    timeoutMs: 180_000,
    script: rotationLoop(cmd),
  });
  expectRounds(ran, 'inspector');
  const sent = [...ran.stdout.matchAll(/interop-inspector-\d+/g)].map((m) => m[0]);
  expectMarkers([...new Set(sent)], 'inspector', ran);
  return {
    version: `@modelcontextprotocol/inspector ${version}`,
    detail: `--cli tools/call message_send, ${ROUNDS} calls on ${ROUNDS} generations`,
  };
}

/**
 * The MCP conformance suite's server scenarios that apply to a server that
 * offers tools only (no resources, prompts, logging or completion): the
 * 2025 handshake, ping, tools/list and DNS-rebinding protection; each round
 * on a new token generation, through the auth-adding proxy above.
 */
export const CONFORMANCE_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
] as const;

export async function checkConformance(ctx: CheckContext, version: string): Promise<CheckResult> {
  const scenarios = CONFORMANCE_SCENARIOS.map(
    (s) =>
      `conformance server --url "http://localhost:$PORT/mcp" --scenario ${s} > "$OUT" 2>&1 || { cat "$OUT"; exit 1; }; ` +
      `grep -q "0 failed" "$OUT" || { cat "$OUT"; exit 1; }; echo "interop-conformance-$i-${s}"`,
  ).join('; ');
  const setup = [
    'PF=$(mktemp); OUT=$(mktemp)',
    `node ${JSON.stringify(CONFORMANCE_PROXY)} "$AGENTTEAM_MCP_URL" "$AGENTTEAM_EXEC_TOKEN_FILE" "$PF" & PROXY=$!`,
    "trap 'kill $PROXY 2>/dev/null' EXIT",
    'while [ ! -s "$PF" ]; do sleep 0.1; done; PORT=$(cat "$PF")',
  ].join('\n');
  const ran = await runUnder(ctx, {
    runtime: 'generic',
    agent: 'conformance',
    ttl: 10,
    timeoutMs: 300_000,
    script: `${setup}\n${rotationLoop(scenarios)}`,
  });
  expectRounds(ran, 'conformance');
  const passed = new Set(
    [...ran.stdout.matchAll(/interop-conformance-\d+-[a-z-]+/g)].map((m) => m[0]),
  );
  if (passed.size !== ROUNDS * CONFORMANCE_SCENARIOS.length) {
    throw new Error(
      `conformance: ${passed.size} of ${ROUNDS * CONFORMANCE_SCENARIOS.length} scenario runs passed\n${tail(ran.stdout)}\n${tail(ran.stderr)}`,
    );
  }
  return {
    version: `@modelcontextprotocol/conformance ${version}`,
    detail: `server scenarios ${CONFORMANCE_SCENARIOS.join(', ')}, each on ${ROUNDS} generations`,
  };
}
