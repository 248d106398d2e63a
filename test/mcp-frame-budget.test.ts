import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { Ajv } from 'ajv';
import { MCP_TOOLS } from '../catalog/mcp-tools.js';
import { RESULT_BUDGET_BYTES } from '../daemon/exec/result-boundary.js';
import { rpc, startDaemon, startRuntime } from './mcp-harness.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

interface Frame {
  result: { isError: boolean; content: { type: string; text: string }[]; structuredContent?: unknown };
}

/** The `result` member exactly as sent: the JSON-RPC frame minus its fixed head and tail. */
function resultBytes(body: string, id: number): number {
  const head = `{"jsonrpc":"2.0","id":${id},"result":`;
  assert.ok(body.startsWith(head));
  return bytes(body) - bytes(head) - 1;
}

test('MCP tools/call: the complete result as sent (text copy and structuredContent) is what the 64 KiB budget measures', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  let id = 0;
  const callTool = async (name: string, args: Record<string, unknown>) => {
    const res = await rpc(rt.mcpUrl, rt.token(), { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
    assert.equal(res.status, 200);
    return { body: res.body, id, frame: JSON.parse(res.body) as Frame };
  };

  // Quotes cost 2 bytes in the structured JSON and 4 in its text copy: 6 000 of them per message.
  const content = '"'.repeat(6_000);
  for (let i = 0; i < 8; i++) {
    const sent = await callTool('message_send', { target: 'channel:q', content });
    assert.equal(sent.frame.result.isError, false, sent.frame.result.content[0]?.text);
  }

  await t.test('every success frame is within the budget; the first refused page is one whose structured part alone would fit', async () => {
    let refused = 0;
    for (let limit = 1; limit <= 8; limit++) {
      const r = await callTool('message_history_read', { target: 'channel:q', limit });
      if (!r.frame.result.isError) {
        assert.ok(resultBytes(r.body, r.id) <= RESULT_BUDGET_BYTES, `limit ${limit}: ${resultBytes(r.body, r.id)} bytes`);
        assert.deepEqual(JSON.parse(r.frame.result.content[0]!.text), r.frame.result.structuredContent);
        continue;
      }
      refused = refused || limit;
      const env = JSON.parse(r.frame.result.content[0]!.text) as { error: { code: string; next: { action: string; input: Record<string, unknown> } } };
      assert.equal(env.error.code, 'result_budget_exceeded');
      assert.equal(env.error.next.action, 'message_history_read');
    }
    assert.ok(refused > 0, 'some page is over budget');
    // The page first refused carries less than 64 KiB of structured JSON: only the full frame is over.
    const structured = bytes(JSON.stringify({ target: 'channel:q', messages: Array(refused).fill({ c: content }), hasMore: true }));
    assert.ok(structured < RESULT_BUDGET_BYTES, `structured part ${structured} bytes`);
  });

  await t.test('mutation receipts over budget name a retrieval call valid against the retrieval tool\'s input schema', async () => {
    const historySchema = MCP_TOOLS.find((x) => x.name === 'message_history_read')!.inputSchema;
    const valid = new Ajv({ strict: false }).compile(historySchema);
    // Control characters serialize as \u00XX (6 bytes, 7 in the text copy): 12 000 of them exceed the budget.
    const huge = '\u0001'.repeat(12_000);
    const sent = await callTool('message_send', { target: 'channel:r', content: huge });
    assert.equal(sent.frame.result.isError, true);
    assert.ok(bytes(sent.body) < 8 * 1024);
    const env = JSON.parse(sent.frame.result.content[0]!.text) as { error: { code: string; metadata: { mutation_applied: boolean; mutation_receipt: Record<string, any> } } };
    assert.equal(env.error.code, 'result_budget_exceeded');
    assert.equal(env.error.metadata.mutation_applied, true);
    const receipt = env.error.metadata.mutation_receipt;
    assert.equal(receipt.entity, 'message');
    assert.match(receipt.id, /^msg_/);
    assert.equal(receipt.target, 'channel:r');
    assert.deepEqual(receipt.retrieval, { action: 'message_history_read', input: { target: 'channel:r' } });
    assert.ok(valid(receipt.retrieval.input), JSON.stringify(valid.errors));
    assert.ok(!sent.body.includes('\\u0001'), 'no content crosses the boundary');

    const reacted = await callTool('message_react', { messageId: receipt.id, emoji: ':+1:' });
    const renv = JSON.parse(reacted.frame.result.content[0]!.text) as { error: { metadata: { mutation_receipt: Record<string, any> } } };
    assert.deepEqual(renv.error.metadata.mutation_receipt.retrieval, { action: 'message_history_read', input: { target: 'channel:r' } });
    // The named call is one the route accepts (its page may itself be over budget: then it says how to continue).
    const follow = await callTool(receipt.retrieval.action, { ...receipt.retrieval.input, limit: 1 });
    const text = follow.frame.result.content[0]!.text;
    assert.ok(!follow.frame.result.isError || JSON.parse(text).error.code === 'result_budget_exceeded', text.slice(0, 200));
  });
});
