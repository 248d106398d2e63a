import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { LIMITS } from '../../catalog/limits.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import { connectMcp as connect, textOf } from '../../devkit/mcp-client.js';

/** What a model gets back over the MCP route when a call fails or its answer is too big. */
test('MCP route: failed and oversized calls are results the model can act on', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());

  const client = await connect(rt.mcpUrl, rt.token());
  t.after(() => client.close());

  await t.test('tool failures are isError results the model can act on', async () => {
    const noTarget = await client.callTool({
      name: 'message_send',
      arguments: { content: 'no target' },
    });
    assert.equal(noTarget.isError, true);
    const env = JSON.parse(textOf(noTarget)) as {
      ok: boolean;
      error: { code: string; details: { path: string }[] };
    };
    assert.equal(env.ok, false);
    assert.equal(env.error.code, 'validation_failed');
    assert.ok(env.error.details.some((x) => x.path === '/target'));
    const badTarget = await client.callTool({
      name: 'message_send',
      arguments: { target: 'general', content: 'x' },
    });
    assert.equal(badTarget.isError, true);
    const missing = await client.callTool({
      name: 'message_react',
      arguments: { messageId: 'msg_000000000000', emoji: '👍' },
    });
    assert.equal(missing.isError, true);
    assert.equal(
      (JSON.parse(textOf(missing)) as { error: { code: string } }).error.code,
      'not_found',
    );
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);
  });

  await t.test(
    'a page over the 64 KiB result budget is refused with continuation advice, never cut',
    async () => {
      // Control characters, 6 bytes each as JSON: eight of the longest messages are over the budget.
      const big = '\u0001'.repeat(LIMITS.messageContent.chars);
      for (let i = 0; i < 8; i++) {
        const r = await client.callTool({
          name: 'message_send',
          arguments: { target: 'channel:big', content: big },
        });
        assert.notEqual(r.isError, true, textOf(r));
      }
      const over = await client.callTool({
        name: 'message_history_read',
        arguments: { target: 'channel:big', limit: 8 },
      });
      assert.equal(over.isError, true);
      const env = JSON.parse(textOf(over)) as {
        error: {
          code: string;
          hint: string;
          next: { action: string; input: { target: string; limit: number } };
        };
      };
      assert.equal(env.error.code, 'result_budget_exceeded');
      assert.equal(env.error.next.action, 'message_history_read');
      assert.equal(env.error.next.input.target, 'channel:big');
      assert.ok(env.error.next.input.limit >= 1 && env.error.next.input.limit < 8);
      const fits = await client.callTool({
        name: 'message_history_read',
        arguments: env.error.next.input,
      });
      assert.notEqual(fits.isError, true, textOf(fits));
      assert.equal(
        (fits.structuredContent as { messages: unknown[] }).messages.length,
        env.error.next.input.limit,
      );
    },
  );
});
