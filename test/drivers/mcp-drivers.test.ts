import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { defaultCatalog } from '../../catalog/catalog.js';
import { helpIndexOf, renderExecIndex } from '../../catalog/help.js';
import { fromRuntimeName, toRuntimeName } from '../../daemon/drivers/names.js';
import { RUNTIME_KINDS as RUNTIMES } from '../../catalog/runtimes.js';
import { BIN, fakeRuntime, startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { operatorCall, rpc } from '../../devkit/http.js';

const sh = promisify(execFile);
const TOOL_NAMES = MCP_TOOLS.map((t) => t.name);

/** Every `name` a guidance document presents as an MCP tool (`- \`name\` (...)` lines). */
function toolsListedIn(guidance: string): string[] {
  return [...guidance.matchAll(/^- `([^`]+)` \(/gm)].map((m) => m[1] ?? '');
}

function checkGuidance(runtime: (typeof RUNTIMES)[number], guidance: string): void {
  assert.deepEqual(
    toolsListedIn(guidance),
    TOOL_NAMES.map((n) => toRuntimeName(runtime, n)),
    `${runtime} guidance lists exactly the inventory`,
  );
  assert.ok(
    guidance.includes(renderExecIndex(helpIndexOf(defaultCatalog())).trimEnd()),
    `${runtime} guidance embeds the Exec mixed index`,
  );
}

test('runtime names map both ways and MCP tools stay apart from Exec domains', () => {
  for (const runtime of RUNTIMES) {
    for (const tool of TOOL_NAMES) {
      const visible = toRuntimeName(runtime, tool);
      assert.deepEqual(fromRuntimeName(runtime, visible, TOOL_NAMES), {
        server: 'agentteam',
        tool,
      });
    }
  }
  assert.equal(toRuntimeName('claude', 'message_send'), 'mcp__agentteam__message_send');
  assert.equal(toRuntimeName('codex', 'message_send'), 'mcp__agentteam__message_send');
  assert.equal(toRuntimeName('opencode', 'message_send'), 'mcp_agentteam_message_send');
  assert.equal(fromRuntimeName('claude', 'mcp__other__message_send', TOOL_NAMES), null);
  assert.equal(fromRuntimeName('opencode', 'mcp_agentteam_task_create', TOOL_NAMES), null);
  const domains = Object.keys(defaultCatalog().domains);
  for (const tool of TOOL_NAMES)
    assert.ok(!domains.some((d) => tool === d || tool.startsWith(`${d}_`)), tool);
});

test('drivers write configs each runtime reads, pointing at the MCP route', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const bin = mkdtempSync(join(tmpdir(), 'agentteam-fake-rt-'));
  t.after(() => rmSync(bin, { recursive: true, force: true }));

  await t.test(
    'claude: --mcp-config with a headersHelper that reads the current token',
    async () => {
      const rt = await startRuntime(d, {
        server: 'local',
        agent: 'c1',
        runtime: 'claude',
        command: [fakeRuntime(bin, 'claude')],
      });
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
      const listed = await rpc(entry?.url ?? '', headers.Authorization.slice('Bearer '.length), {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
      });
      assert.equal(listed.status, 200);
      const prompt = rt.argv[rt.argv.indexOf('--append-system-prompt') + 1] ?? '';
      checkGuidance('claude', prompt);
      assert.equal(readFileSync(rt.env.AGENTTEAM_GUIDANCE_FILE ?? '', 'utf8'), prompt);
      assert.ok(!Object.values(rt.env).includes(rt.token()), 'no token in the environment');
    },
  );

  await t.test(
    'claude under a wrapped command: sh -c keeps its own arguments; a claude it starts gets the options',
    async () => {
      // A fake claude that prints its argv as JSON, found on PATH by the wrapped shell.
      const real = mkdtempSync(join(tmpdir(), 'agentteam-real-claude-'));
      t.after(() => rmSync(real, { recursive: true, force: true }));
      writeFileSync(
        join(real, 'claude'),
        `#!${process.execPath}\nconst a=process.argv.slice(2);process.stdout.write(JSON.stringify({a,c:require('fs').readFileSync(a[1],'utf8')})+"\\n")\n`,
        { mode: 0o755 },
      );
      const r = await sh(
        process.execPath,
        [
          BIN,
          'run',
          '--server',
          'local',
          '--agent',
          'c2',
          '--runtime',
          'claude',
          '--',
          'sh',
          '-c',
          'echo "wrapped:$1"; claude -p hello',
          'sh',
          'first',
        ],
        {
          env: { ...process.env, AGENTTEAM_HOME: d.home, PATH: `${real}:${process.env.PATH}` },
          timeout: 15_000,
        },
      );
      const [line1, line2] = r.stdout.trim().split('\n');
      assert.equal(line1, 'wrapped:first', 'sh received -c and its script unchanged');
      const { a: argv, c: configText } = JSON.parse(line2 ?? '{}') as { a: string[]; c: string };
      assert.equal(argv[0], '--mcp-config');
      assert.deepEqual(argv.slice(-2), ['-p', 'hello']);
      checkGuidance('claude', argv[argv.indexOf('--append-system-prompt') + 1] ?? '');
      const entry = (JSON.parse(configText) as { mcpServers: Record<string, { url: string }> })
        .mcpServers.agentteam;
      assert.match(entry?.url ?? '', /\/api\/internal\/mcp\/servers\/local\/agents\/c2$/);
    },
  );

  await t.test('generic: the guidance says to read the token file for every request', async () => {
    const rt = await startRuntime(d, { server: 'local', agent: 'g1', runtime: 'generic' });
    t.after(() => rt.close());
    const guidance = readFileSync(rt.env.AGENTTEAM_GUIDANCE_FILE ?? '', 'utf8');
    assert.match(guidance, /AGENTTEAM_EXEC_TOKEN_FILE/);
    assert.match(guidance, /read it again for every request/);
  });

  await t.test(
    'opencode: OPENCODE_CONFIG with a stdio bridge that reads the token file per request',
    async () => {
      const lease = await openLease(d, {
        serverId: 'local',
        agentId: 'o1',
        runtime: 'opencode',
        env: {},
      });
      t.after(() => lease.close());
      const config = JSON.parse(readFileSync(lease.data.env.OPENCODE_CONFIG ?? '', 'utf8')) as {
        instructions: string[];
        mcp: Record<string, { type: string; command: string[]; enabled: boolean }>;
      };
      const entry = config.mcp.agentteam;
      assert.equal(entry?.type, 'local');
      assert.equal(entry?.enabled, true);
      checkGuidance('opencode', readFileSync(config.instructions[0] ?? '', 'utf8'));
      const [node, script] = entry?.command ?? [];
      const bridge = spawn(node ?? '', [script ?? ''], { stdio: ['pipe', 'pipe', 'inherit'] });
      t.after(() => bridge.kill('SIGKILL'));
      const lines = createInterface({ input: bridge.stdout! })[Symbol.asyncIterator]();
      const ask = async (msg: object) => {
        bridge.stdin!.write(`${JSON.stringify(msg)}\n`);
        return JSON.parse(((await lines.next()).value as string) ?? 'null') as {
          id: number;
          result?: any;
          error?: any;
        };
      };
      const init = await ask({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'bridge-test', version: '1' },
        },
      });
      assert.equal(init.result?.protocolVersion, '2025-11-25');
      for (let i = 0; i < 3; i++) {
        const before = lease.token();
        const rotated = await operatorCall(
          d,
          'POST',
          `/api/v1/runtimes/${lease.data.authorizationId}/rotate`,
        );
        assert.equal(rotated.status, 200, rotated.body);
        assert.notEqual(lease.token(), before);
        const listed = await ask({ jsonrpc: '2.0', id: 10 + i, method: 'tools/list' });
        assert.ok(
          listed.result?.tools?.some((x: { name: string }) => x.name === 'message_send'),
          JSON.stringify(listed),
        );
      }
      // A 2026-07-28 request over stdio: the bridge mirrors its _meta version, method and tool name in headers.
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'bridge-test', version: '1' },
      };
      const modern = await ask({
        jsonrpc: '2.0',
        id: 15,
        method: 'tools/call',
        params: {
          name: 'message_send',
          arguments: { target: 'channel:bridge', content: 'über die Brücke' },
          _meta: meta,
        },
      });
      assert.equal(modern.result?.resultType, 'complete', JSON.stringify(modern));
      assert.equal(modern.result?.structuredContent?.message?.content, 'über die Brücke');
      // Once the authorization is revoked, the bridge answers with an error, not silence.
      await operatorCall(d, 'DELETE', `/api/v1/runtimes/${lease.data.authorizationId}`);
      const after = await ask({ jsonrpc: '2.0', id: 20, method: 'tools/list' });
      assert.equal(after.id, 20);
      assert.ok(after.error, JSON.stringify(after));
    },
  );
  // Codex: test/drivers/codex-driver.test.ts.
});
