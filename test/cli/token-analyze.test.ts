import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { FORBIDDEN_BODY } from '../../daemon/http/runtime-auth.js';
import { operatorCall, rawRequest, rpc } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const results = JSON.parse(readFileSync(`${FIXTURES}session-results.json`, 'utf8')) as Record<
  string,
  string
>;

interface Entry {
  name: string;
  bytes: number;
  tokens: number;
  calls?: number;
  share?: number;
  modelBytes?: number;
  modelTokens?: number;
}
interface Report {
  runtime: string;
  tokenizer: string;
  modelView?: string;
  perTurn?: { bytes: number; tokens: number; parts: string[] };
  surfaces: Entry[];
  tools: Entry[];
  session?: {
    format: string;
    lines: number;
    badLines: number;
    tools: Entry[];
    otherTools: { calls: number; bytes: number; tokens: number };
  };
}

/** The expected attribution of one tool: its result texts, measured independently of the CLI. */
function expected(name: string, texts: string[]): Entry {
  return {
    name,
    calls: texts.length,
    bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0),
    tokens: texts.reduce((n, t) => n + countTokens(t), 0),
  };
}

function strip(list: Entry[]): Entry[] {
  return list.map(({ name, calls, bytes, tokens }) => ({ name, calls, bytes, tokens }) as Entry);
}

test('agentteam token analyze: surfaces, per-tool shares, session attribution, its own credential scope', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());

  await t.test('--json: every surface and each tool definition, in bytes and tokens', async () => {
    const r = await d.cli(['token', 'analyze', '--runtime', 'claude', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Report;
    assert.equal(report.runtime, 'claude');
    assert.match(report.tokenizer, /o200k_base/);
    assert.deepEqual(
      report.surfaces.map((s) => s.name),
      ['mcp_inventory', 'runtime_guidance', 'exec_index', 'server_instructions'],
    );
    for (const s of report.surfaces)
      assert.ok(s.bytes > 0 && s.tokens > 0 && s.tokens < s.bytes, s.name);
    assert.deepEqual(report.tools.map((x) => x.name).sort(), MCP_TOOLS.map((x) => x.name).sort());
    const inventory = report.surfaces[0]!;
    const sum = report.tools.reduce((n, x) => n + x.tokens, 0);
    assert.ok(
      sum <= inventory.tokens && sum > inventory.tokens * 0.9,
      'the definitions make up the inventory',
    );
    for (let i = 1; i < report.tools.length; i++)
      assert.ok(report.tools[i - 1]!.tokens >= report.tools[i]!.tokens, 'largest first');
    // The definitions are measured as the runtime names them.
    const claude = report.tools.find((x) => x.name === 'memory_search')!;
    const generic = (
      JSON.parse((await d.cli(['token', 'analyze', '--json'])).stdout) as Report
    ).tools.find((x) => x.name === 'memory_search')!;
    assert.equal(claude.bytes - generic.bytes, Buffer.byteLength('mcp__agentteam__'));
  });

  await t.test(
    '--json: what the model is sent, beside the wire, per tool and per turn',
    async () => {
      const r = await d.cli(['token', 'analyze', '--runtime', 'codex', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout) as Report;
      assert.match(report.modelView ?? '', /parameters/);
      for (const x of [...report.tools, ...report.surfaces])
        assert.ok(x.modelBytes! > 0 && x.modelTokens! > 0 && x.modelBytes! <= x.bytes, x.name);
      const inventory = report.surfaces.find((x) => x.name === 'mcp_inventory')!;
      const sum = report.tools.reduce((n, x) => n + x.modelBytes!, 0);
      assert.equal(
        inventory.modelBytes,
        sum + report.tools.length + 1,
        'the model-visible inventory is one array of the tools',
      );
      const turn = report.perTurn!;
      assert.deepEqual(turn.parts, ['mcp_inventory', 'runtime_guidance', 'server_instructions']);
      assert.equal(
        turn.tokens,
        turn.parts.reduce((n, p) => n + report.surfaces.find((x) => x.name === p)!.modelTokens!, 0),
      );
    },
  );

  await t.test(
    '--session on a Claude Code transcript attributes result tokens per agentteam tool, largest first',
    async () => {
      const r = await d.cli([
        'token',
        'analyze',
        '--runtime',
        'claude',
        '--session',
        `${FIXTURES}claude-session.jsonl`,
        '--json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const s = (JSON.parse(r.stdout) as Report).session!;
      assert.equal(s.format, 'claude');
      assert.equal(s.badLines, 0);
      const want = [
        expected('message_history_read', [results.hist!, results.hist!]),
        expected('message_send', [results.send!]),
        expected('memory_search', [results.mem!]),
        expected('exec task list', [results.tasks!]),
      ].sort((a, b) => b.tokens - a.tokens || b.bytes - a.bytes);
      assert.deepEqual(strip(s.tools), want);
      assert.equal(s.tools[0]!.name, 'message_history_read');
      assert.equal(s.otherTools.calls, 1, 'the Read result is not an agentteam tool');
      const total = want.reduce((n, e) => n + e.tokens, 0);
      assert.equal(s.tools[0]!.share, Math.round((want[0]!.tokens / total) * 10_000) / 10_000);
    },
  );

  await t.test(
    '--session on a Codex rollout: output items, the event fallback, shell exec calls',
    async () => {
      const r = await d.cli([
        'token',
        'analyze',
        '--runtime',
        'codex',
        '--session',
        `${FIXTURES}codex-rollout.jsonl`,
        '--json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const s = (JSON.parse(r.stdout) as Report).session!;
      assert.equal(s.format, 'codex');
      assert.equal(s.badLines, 1);
      const want = [
        expected('message_history_read', [results.hist!]),
        expected('message_send', [results.send!]),
        expected('memory_search', [results.mem!]),
        expected('exec task list', [results.codexShell!]),
      ].sort((a, b) => b.tokens - a.tokens || b.bytes - a.bytes);
      assert.deepEqual(strip(s.tools), want);
      assert.equal(s.otherTools.calls, 1);
    },
  );

  await t.test(
    '--session on a rollout that names tools inside a namespace (Codex 0.171)',
    async () => {
      const r = await d.cli([
        'token',
        'analyze',
        '--runtime',
        'codex',
        '--session',
        `${FIXTURES}codex-rollout-namespaced.jsonl`,
        '--json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const s = (JSON.parse(r.stdout) as Report).session!;
      assert.deepEqual(
        s.tools.map((x) => [x.name, x.calls]),
        [['message_send', 1]],
        'mcp__agentteam + message_send is the agentteam tool',
      );
      assert.equal(s.otherTools.calls, 1, 'collaboration + spawn_agent is not');
    },
  );

  await t.test('the default output is a human table', async () => {
    const r = await d.cli(['token', 'analyze', '--session', `${FIXTURES}claude-session.jsonl`]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Surface\s+Bytes\s+Tokens$/m);
    assert.match(r.stdout, /^mcp_inventory\s+\d+\s+\d+$/m);
    assert.match(r.stdout, /^Tool definition\s+Bytes\s+Tokens\s+Share$/m);
    assert.match(r.stdout, /^message_history_read\s+2\s+\d+\s+\d+\s+[\d.]+%$/m);
    assert.match(r.stdout, /^What the model is sent \(name, description, input schema\)/m);
    assert.match(r.stdout, /^Model-visible\s+Bytes\s+Tokens$/m);
    assert.match(
      r.stdout,
      /^per turn \(mcp_inventory \+ runtime_guidance \+ server_instructions\)\s+\d+\s+\d+$/m,
    );
  });

  await t.test('usage errors and no daemon', async () => {
    const missing = await d.cli(['token', 'analyze', '--session', '/nonexistent/file.jsonl']);
    assert.equal(missing.code, 2);
    const bad = await d.cli(['token', 'analyze', '--runtime', 'nope']);
    assert.equal(bad.code, 2);
    const none = await d.cli(['token', 'analyze'], {
      env: { AGENTTEAM_HOME: `${d.home}/nothing-here` },
    });
    assert.equal(none.code, 3);
  });

  await t.test(
    'the token-analysis credential is refused on the Exec and MCP routes, and only it opens the surface',
    async () => {
      const cred = await operatorCall(d, 'POST', '/api/v1/token-analysis/credentials');
      assert.equal(cred.status, 201, cred.body);
      const token = (JSON.parse(cred.body) as { data: { token: string } }).data.token;
      const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
      t.after(() => rt.close());
      const execUrl = rt.env.AGENTTEAM_EXEC_BASE_URL!;
      const exec = await rawRequest(
        `${execUrl}/task/list`,
        'POST',
        { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        '{}',
      );
      assert.equal(exec.status, 403);
      assert.equal(exec.body, FORBIDDEN_BODY);
      const catalog = await rawRequest(`${execUrl}/catalog`, 'GET', {
        authorization: `Bearer ${token}`,
      });
      assert.equal(catalog.status, 403);
      const mcp = await rpc(rt.mcpUrl, token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      assert.equal(mcp.status, 403);
      assert.equal(mcp.body, FORBIDDEN_BODY);
      // The runtime's own token works there (the refusal is the scope, not the route).
      assert.equal(
        (await rpc(rt.mcpUrl, rt.token(), { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status,
        200,
      );

      const surface = `${d.url}/api/internal/token-analysis/surface?runtime=codex`;
      assert.equal(
        (await rawRequest(surface, 'GET', { authorization: `Bearer ${token}` })).status,
        200,
      );
      for (const other of [
        rt.token(),
        readFileSync(`${d.home}/operator.token`, 'utf8').trim(),
        '',
        'garbage',
      ]) {
        const r = await rawRequest(surface, 'GET', { authorization: `Bearer ${other}` });
        assert.equal(r.status, 403);
        assert.equal(r.body, FORBIDDEN_BODY);
      }
    },
  );
});
