import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MCP_TOOLS } from '../catalog/mcp-tools.js';
import { defaultCatalog } from '../catalog/catalog.js';
import { helpIndexOf, renderExecIndex } from '../catalog/help.js';
import { fromRuntimeName, toRuntimeName } from '../daemon/drivers/names.js';
import { RUNTIME_KINDS as RUNTIMES } from '../catalog/runtimes.js';
import { fakeRuntime, openLease, operatorCall, rpc, startDaemon, startRuntime, type Daemon } from './mcp-harness.js';

const sh = promisify(execFile);
const TOOL_NAMES = MCP_TOOLS.map((t) => t.name);

/** Every `name` a guidance document presents as an MCP tool (`- \`name\` (...)` lines). */
function toolsListedIn(guidance: string): string[] {
  return [...guidance.matchAll(/^- `([^`]+)` \(/gm)].map((m) => m[1] ?? '');
}

function checkGuidance(runtime: (typeof RUNTIMES)[number], guidance: string): void {
  assert.deepEqual(toolsListedIn(guidance), TOOL_NAMES.map((n) => toRuntimeName(runtime, n)), `${runtime} guidance lists exactly the inventory`);
  assert.ok(guidance.includes(renderExecIndex(helpIndexOf(defaultCatalog())).trimEnd()), `${runtime} guidance embeds the Exec mixed index`);
}

test('runtime names map both ways and MCP tools stay apart from Exec domains', () => {
  for (const runtime of RUNTIMES) {
    for (const tool of TOOL_NAMES) {
      const visible = toRuntimeName(runtime, tool);
      assert.deepEqual(fromRuntimeName(runtime, visible, TOOL_NAMES), { server: 'agentteam', tool });
    }
  }
  assert.equal(toRuntimeName('claude', 'message_send'), 'mcp__agentteam__message_send');
  assert.equal(toRuntimeName('codex', 'message_send'), 'mcp__agentteam__message_send');
  assert.equal(toRuntimeName('opencode', 'message_send'), 'mcp_agentteam_message_send');
  assert.equal(fromRuntimeName('claude', 'mcp__other__message_send', TOOL_NAMES), null);
  assert.equal(fromRuntimeName('opencode', 'mcp_agentteam_task_create', TOOL_NAMES), null);
  const domains = Object.keys(defaultCatalog().domains);
  for (const tool of TOOL_NAMES) assert.ok(!domains.some((d) => tool === d || tool.startsWith(`${d}_`)), tool);
});

test('drivers write configs each runtime reads, pointing at the MCP route', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const bin = mkdtempSync(join(tmpdir(), 'agentteam-fake-rt-'));
  t.after(() => rmSync(bin, { recursive: true, force: true }));

  await t.test('claude: --mcp-config with a headersHelper that reads the current token', async () => {
    const rt = await startRuntime(d, { server: 'local', agent: 'c1', runtime: 'claude', command: [fakeRuntime(bin, 'claude')] });
    t.after(() => rt.close());
    const at = rt.argv.indexOf('--mcp-config');
    assert.ok(at >= 0, rt.argv.join(' '));
    const configPath = rt.argv[at + 1] ?? '';
    assert.equal(statSync(configPath).mode & 0o777, 0o600);
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as {
      mcpServers: Record<string, { type: string; url: string; headersHelper: string }>;
    };
    const entry = config.mcpServers.agentteam;
    assert.equal(entry?.type, 'http');
    assert.equal(entry?.url, rt.mcpUrl);
    // Claude Code runs the helper through a shell and reads a JSON object of headers from stdout.
    const { stdout } = await sh('/bin/sh', ['-c', entry?.headersHelper ?? 'false']);
    const headers = JSON.parse(stdout) as { Authorization: string };
    assert.equal(headers.Authorization, `Bearer ${rt.token()}`);
    const listed = await rpc(entry?.url ?? '', headers.Authorization.slice('Bearer '.length), { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(listed.status, 200);
    const prompt = rt.argv[rt.argv.indexOf('--append-system-prompt') + 1] ?? '';
    checkGuidance('claude', prompt);
    assert.equal(readFileSync(rt.env.AGENTTEAM_GUIDANCE_FILE ?? '', 'utf8'), prompt);
    assert.ok(!Object.values(rt.env).includes(rt.token()), 'no token in the environment');
  });

  await t.test('opencode: OPENCODE_CONFIG with a remote entry reading the token file', async () => {
    const rt = await startRuntime(d, { server: 'local', agent: 'o1', runtime: 'opencode', command: [fakeRuntime(bin, 'opencode')] });
    t.after(() => rt.close());
    const config = JSON.parse(readFileSync(rt.env.OPENCODE_CONFIG ?? '', 'utf8')) as {
      instructions: string[];
      mcp: Record<string, { type: string; url: string; enabled: boolean; headers: Record<string, string> }>;
    };
    const entry = config.mcp.agentteam;
    assert.equal(entry?.type, 'remote');
    assert.equal(entry?.url, rt.mcpUrl);
    assert.equal(entry?.enabled, true);
    assert.equal(entry?.headers.Authorization, `Bearer {file:${rt.env.AGENTTEAM_EXEC_TOKEN_FILE}}`);
    checkGuidance('opencode', readFileSync(config.instructions[0] ?? '', 'utf8'));
  });

  await t.test('codex: private CODEX_HOME config.toml, rewritten when the token rotates', async () => {
    const lease = await openLease(d, { serverId: 'local', agentId: 'x1', runtime: 'codex', env: {} });
    t.after(() => lease.close());
    const home = lease.data.env.CODEX_HOME ?? '';
    const configPath = join(home, 'config.toml');
    assert.equal(statSync(configPath).mode & 0o777, 0o600);
    const parse = () => {
      const text = readFileSync(configPath, 'utf8');
      assert.match(text, /^\[mcp_servers\.agentteam\]$/m);
      const url = JSON.parse(/^url = (".*")$/m.exec(text)?.[1] ?? 'null') as string;
      const auth = JSON.parse(/^http_headers = \{ "Authorization" = (".*") \}$/m.exec(text)?.[1] ?? 'null') as string;
      return { url, auth };
    };
    const first = parse();
    assert.equal(first.url, lease.mcpUrl);
    assert.equal(first.auth, `Bearer ${lease.token()}`);
    const rotated = await operatorCall(d, 'POST', `/api/v1/runtimes/${lease.data.authorizationId}/rotate`);
    assert.equal(rotated.status, 200, rotated.body);
    const second = parse();
    assert.equal(second.auth, `Bearer ${lease.token()}`);
    assert.notEqual(second.auth, first.auth);
    checkGuidance('codex', readFileSync(lease.data.env.AGENTTEAM_GUIDANCE_FILE ?? '', 'utf8'));
  });
});
