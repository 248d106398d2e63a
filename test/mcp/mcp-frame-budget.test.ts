import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { Ajv } from 'ajv';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { LIMITS } from '../../catalog/limits.js';
import { RESULT_BUDGET_BYTES } from '../../daemon/results/boundary.js';
import { rpc } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { sharedBoundary } from '../../daemon/mcp/boundary.js';
import { gateWith } from '../../devkit/gate.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

interface Frame {
  result: {
    isError: boolean;
    content: { type: string; text: string }[];
    structuredContent?: unknown;
  };
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
    const res = await rpc(rt.mcpUrl, rt.token(), {
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    assert.equal(res.status, 200);
    return { body: res.body, id, frame: JSON.parse(res.body) as Frame };
  };

  // Quotes cost 2 bytes in the structured JSON and 4 in its text copy: as many as the content limit takes per message.
  const content = '"'.repeat(LIMITS.messageContent.chars);
  for (let i = 0; i < 8; i++) {
    const sent = await callTool('message_send', { target: 'channel:q', content });
    assert.equal(sent.frame.result.isError, false, sent.frame.result.content[0]?.text);
  }

  await t.test(
    'every success frame is within the budget; the first refused page is one whose structured part alone would fit',
    async () => {
      let refused = 0;
      for (let limit = 1; limit <= 8; limit++) {
        const r = await callTool('message_history_read', { target: 'channel:q', limit });
        if (!r.frame.result.isError) {
          assert.ok(
            resultBytes(r.body, r.id) <= RESULT_BUDGET_BYTES,
            `limit ${limit}: ${resultBytes(r.body, r.id)} bytes`,
          );
          assert.deepEqual(
            JSON.parse(r.frame.result.content[0]!.text),
            r.frame.result.structuredContent,
          );
          continue;
        }
        refused = refused || limit;
        const env = JSON.parse(r.frame.result.content[0]!.text) as {
          error: { code: string; next: { action: string; input: Record<string, unknown> } };
        };
        assert.equal(env.error.code, 'result_budget_exceeded');
        assert.equal(env.error.next.action, 'message_history_read');
      }
      assert.ok(refused > 0, 'some page is over budget');
      // The page first refused carries less than 64 KiB of structured JSON: only the full frame is over.
      const structured = bytes(
        JSON.stringify({
          target: 'channel:q',
          messages: Array(refused).fill({ c: content }),
          hasMore: true,
        }),
      );
      assert.ok(structured < RESULT_BUDGET_BYTES, `structured part ${structured} bytes`);
    },
  );

  await t.test(
    "mutation receipts over budget name a retrieval call valid against the retrieval tool's input schema",
    async () => {
      // The content limits keep every stored message within the budget, so the over-budget mutation is
      // produced at the boundary itself: the stored message as the handler would return it, made too large.
      const historySchema = MCP_TOOLS.find((x) => x.name === 'message_history_read')!.inputSchema;
      const valid = new Ajv({ strict: false }).compile(historySchema);
      const sent = await callTool('message_send', { target: 'channel:r', content: 'small' });
      const message = (sent.frame.result.structuredContent as { message: Record<string, unknown> })
        .message;
      for (const name of ['message_send', 'message_react'] as const) {
        const tool = MCP_TOOLS.find((x) => x.name === name)!;
        const huge = { message: { ...message, content: '\u0001'.repeat(12_000) } };
        assert.throws(
          () =>
            sharedBoundary(gateWith())(
              tool,
              { target: 'channel:r', content: 'x', messageId: message.id, emoji: ':+1:' },
              huge,
            ),
          (err: unknown) => {
            const e = err as {
              code: string;
              extra: {
                metadata: { mutation_applied: boolean; mutation_receipt: Record<string, any> };
              };
            };
            assert.equal(e.code, 'result_budget_exceeded');
            assert.equal(e.extra.metadata.mutation_applied, true);
            const receipt = e.extra.metadata.mutation_receipt;
            assert.equal(receipt.entity, 'message');
            assert.equal(receipt.id, message.id);
            assert.deepEqual(receipt.retrieval, {
              action: 'message_history_read',
              input: { target: 'channel:r' },
            });
            assert.ok(valid(receipt.retrieval.input), JSON.stringify(valid.errors));
            assert.ok(
              !JSON.stringify(receipt).includes('\\u0001'),
              'no content crosses the boundary',
            );
            return true;
          },
        );
      }
      // The named call is one the route accepts.
      const follow = await callTool('message_history_read', { target: 'channel:r', limit: 1 });
      assert.equal(follow.frame.result.isError, false);
    },
  );
});
