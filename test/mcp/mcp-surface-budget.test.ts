import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { RUNTIME_KINDS } from '../../catalog/runtimes.js';
import { rpc } from '../../devkit/http.js';
import { openLease } from '../../devkit/lease.js';
import { startDaemon } from '../../devkit/daemon.js';

/**
 * The per-turn budget of the tool surface, measured the way an operator
 * measures it: the built CLI's `token analyze --json` against a real daemon.
 */

/** The most tokens (o200k) the Claude runtime's model is sent every turn by agentteam, with the six built-in tools. */
const PER_TURN_TOKENS = 2000;
/** The most bytes a built-in tool costs on average, on the wire and as the model sees it. */
const BYTES_PER_TOOL = 1024;

interface Measure {
  name: string;
  bytes: number;
  tokens: number;
  modelBytes: number;
  modelTokens: number;
}
interface Report {
  runtime: string;
  modelView: string;
  surfaces: Measure[];
  tools: (Measure & { share: number })[];
  perTurn: { bytes: number; tokens: number; parts: string[] };
}

/** Every key anywhere in a JSON value, with the path to it. */
function keysOf(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => keysOf(x, `${path}/${i}`));
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => [`${path}/${k}`, ...keysOf(x, `${path}/${k}`)]);
}

test('the per-turn tool surface: Claude runtime under 2,000 tokens, under 1 KB a tool, no internal keyword on the wire', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const analyze = async (runtime: string): Promise<Report> => {
    const r = await d.cli(['token', 'analyze', '--runtime', runtime, '--json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Report;
  };

  await t.test(
    'claude: the budget holds, and the per-turn figure is the model-visible inventory, the guidance and the instructions',
    async () => {
      const r = await analyze('claude');
      assert.equal(r.tools.length, MCP_TOOLS.length);
      assert.equal(MCP_TOOLS.length, 6, 'the budget is stated for the six built-in tools');
      const by = new Map(r.surfaces.map((s) => [s.name, s]));
      const inventory = by.get('mcp_inventory')!;
      assert.ok(
        r.perTurn.tokens <= PER_TURN_TOKENS,
        `per turn ${r.perTurn.tokens} tokens is over ${PER_TURN_TOKENS}`,
      );
      assert.ok(
        inventory.bytes / r.tools.length <= BYTES_PER_TOOL,
        `the wire inventory is ${inventory.bytes} bytes for ${r.tools.length} tools`,
      );
      assert.ok(
        inventory.modelBytes / r.tools.length <= BYTES_PER_TOOL,
        `the model-visible inventory is ${inventory.modelBytes} bytes`,
      );
      assert.deepEqual(r.perTurn.parts, [
        'mcp_inventory',
        'runtime_guidance',
        'server_instructions',
      ]);
      const sum = (k: 'modelBytes' | 'modelTokens') =>
        r.perTurn.parts.reduce((n, p) => n + by.get(p)![k], 0);
      assert.equal(r.perTurn.tokens, sum('modelTokens'));
      assert.equal(r.perTurn.bytes, sum('modelBytes'));
      // The guidance embeds the Exec index, so the index is not counted a second time.
      assert.ok(by.get('runtime_guidance')!.bytes > by.get('exec_index')!.bytes);
      // What the model is sent is a part of the wire: title, annotations and the output schema stay behind.
      assert.ok(inventory.modelBytes < inventory.bytes);
      for (const tool of r.tools)
        assert.ok(tool.modelBytes < tool.bytes && tool.modelTokens < tool.tokens, tool.name);
      // Guidance and instructions reach the model whole.
      for (const name of ['runtime_guidance', 'server_instructions'])
        assert.equal(by.get(name)!.modelBytes, by.get(name)!.bytes, name);
    },
  );

  await t.test(
    'every runtime kind: a per-turn figure, and what its model sees is no larger than the wire',
    async () => {
      for (const runtime of RUNTIME_KINDS) {
        const r = await analyze(runtime);
        assert.equal(r.runtime, runtime);
        assert.ok(r.modelView.length > 0);
        const inventory = r.surfaces.find((s) => s.name === 'mcp_inventory')!;
        assert.ok(inventory.modelTokens < inventory.tokens, runtime);
        assert.ok(r.perTurn.tokens > inventory.modelTokens, runtime);
      }
      // Codex keeps only its schema subset: its model sees fewer tokens of the same tools than Claude's.
      const [codex, claude] = [await analyze('codex'), await analyze('claude')];
      const inv = (r: Report) => r.surfaces.find((s) => s.name === 'mcp_inventory')!.modelTokens;
      assert.ok(inv(codex) < inv(claude), `${inv(codex)} vs ${inv(claude)}`);
    },
  );

  await t.test(
    'tools/list (official SDK client) carries no internal keyword, and is what token analyze measured',
    async () => {
      const lease = await openLease(d, { serverId: 'local', agentId: 'b1', runtime: 'generic' });
      t.after(() => lease.close());
      const client = new Client({ name: 'surface-budget-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(lease.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${lease.token()}` } },
        }),
      );
      t.after(() => client.close());
      const { tools } = await client.listTools();
      const internal = keysOf(tools).filter((p) => /\/x-[^/]*$/.test(p));
      assert.deepEqual(internal, [], 'no x- keyword reaches a client');
      // The generic runtime names tools by their raw names, so its measured inventory is tools/list's own result, byte for byte.
      const raw = await rpc(lease.mcpUrl, lease.token(), {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
      });
      assert.equal(raw.status, 200, raw.body);
      const listed = JSON.stringify((JSON.parse(raw.body) as { result: unknown }).result);
      const r = await analyze('generic');
      assert.equal(
        r.surfaces.find((s) => s.name === 'mcp_inventory')!.bytes,
        Buffer.byteLength(listed),
      );
      // Every built-in still has an output schema (a closed object) that its results conform to; the SDK client checks them.
      for (const tool of tools)
        assert.equal(tool.outputSchema?.additionalProperties, false, tool.name);
      const sent = await client.callTool({
        name: 'message_send',
        arguments: { target: 'dm:someone', content: 'checked against the output schema' },
      });
      assert.notEqual(sent.isError, true, JSON.stringify(sent));
    },
  );
});
