import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { RUNTIME_KINDS } from '../../catalog/runtimes.js';
import { rpc } from '../../devkit/http.js';
import { openLease, type Lease } from '../../devkit/lease.js';
import { startDaemon } from '../../devkit/daemon.js';
import {
  UNITS,
  inputWith,
  longest,
  oneTooLong,
  pointer,
  stringFields,
  type Schema,
  type Unit,
} from '../../devkit/published.js';

/**
 * A published input schema is a promise: what it admits must be accepted.
 * Every built-in tool's inputSchema, as tools/list serves it in each
 * protocol revision to each runtime kind, is walked field by field: the
 * longest value each string field admits, written in ASCII, emoji, quotes
 * and control characters, must pass the daemon's validation at tools/call
 * (a later refusal, such as not_found for a made-up message id or kb_search
 * outside a human turn, is fine); one code point more must be refused as
 * validation_failed naming the field and its limit.
 */

const V2026 = '2026-07-28';
const REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25', V2026] as const;

/** tools/list as `revision` frames it (2026-07-28 carries the protocol fields in each request's _meta). */
async function listed(
  lease: Lease,
  revision: string,
): Promise<{ name: string; inputSchema: Schema }[]> {
  const modern = revision === V2026;
  const params = modern
    ? {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V2026,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'schema-walk', version: '1' },
        },
      }
    : {};
  const headers: Record<string, string> = {
    'mcp-protocol-version': revision,
    ...(modern ? { 'mcp-method': 'tools/list' } : {}),
  };
  const r = await rpc(
    lease.mcpUrl,
    lease.token(),
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params },
    headers,
  );
  assert.equal(r.status, 200, `${revision}: ${r.body.slice(0, 300)}`);
  return (JSON.parse(r.body) as { result: { tools: { name: string; inputSchema: Schema }[] } })
    .result.tools;
}

interface ToolError {
  code: string;
  message: string;
  details?: { path: string; message: string }[];
}

test('every string a built-in MCP tool schema publishes as admitted is accepted; one code point more is refused naming the limit', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const leases = await Promise.all(
    RUNTIME_KINDS.map((runtime) =>
      openLease(d, { serverId: 'local', agentId: `walk-${runtime}`, runtime }),
    ),
  );
  t.after(() => {
    for (const l of leases) l.close();
  });

  // Each distinct schema once: the walk below covers every one any revision or runtime is shown.
  const distinct = new Map<string, { name: string; schema: Schema }>();
  for (const lease of leases) {
    for (const revision of REVISIONS) {
      const tools = await listed(lease, revision);
      assert.deepEqual(
        tools.map((x) => x.name),
        MCP_TOOLS.map((x) => x.name),
        revision,
      );
      for (const tool of tools)
        distinct.set(`${tool.name} ${JSON.stringify(tool.inputSchema)}`, {
          name: tool.name,
          schema: tool.inputSchema,
        });
    }
  }
  assert.equal(
    distinct.size,
    MCP_TOOLS.length,
    'every revision and runtime is shown the same input schemas',
  );

  const caller = leases[0]!;
  let id = 1;
  const callTool = async (
    name: string,
    args: Record<string, unknown>,
  ): Promise<ToolError | null> => {
    const r = await rpc(
      caller.mcpUrl,
      caller.token(),
      { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    assert.equal(r.status, 200, r.body.slice(0, 300));
    const result = (
      JSON.parse(r.body) as { result: { isError?: boolean; content: { text: string }[] } }
    ).result;
    return result.isError
      ? (JSON.parse(result.content[0]!.text) as { error: ToolError }).error
      : null;
  };

  for (const { name, schema } of distinct.values()) {
    const bySchema = (e: ToolError | null): e is ToolError =>
      e?.code === 'validation_failed' &&
      e.message === `arguments do not match the ${name} input schema`;
    await t.test(name, async () => {
      for (const f of stringFields(schema)) {
        const where = `${name} ${pointer(f.path)}`;
        for (const unit of Object.keys(UNITS) as Unit[]) {
          const value = longest(f.schema, unit);
          if (value === undefined) continue;
          const answer = await callTool(name, inputWith(schema, f.path, value));
          assert.ok(
            !bySchema(answer),
            `${where}: the longest ${unit} value it publishes (${[...value].length} code points) is refused: ${JSON.stringify(answer).slice(0, 400)}`,
          );
          const over = await callTool(name, inputWith(schema, f.path, oneTooLong(f.schema, unit)));
          assert.ok(
            bySchema(over),
            `${where}: one ${unit} code point over maxLength passed: ${JSON.stringify(over).slice(0, 300)}`,
          );
          const detail = over.details?.find(
            (x) => x.path === pointer(f.path) && x.message.includes(String(f.schema.maxLength)),
          );
          assert.ok(
            detail,
            `${where}, ${unit}: the refusal names the field and its limit ${f.schema.maxLength}: ${JSON.stringify(over.details)}`,
          );
        }
      }
    });
  }
});
