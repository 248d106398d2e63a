import { describe, it, test } from 'node:test';
import { strict as assert } from 'node:assert';
import { LIMITS } from '../../catalog/limits.js';
import { closeHttp, rpc } from '../../devkit/http.js';
import { startDaemon, type Daemon as McpDaemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { expensive, FLAVORS, WORST } from '../../devkit/limits.js';

/**
 * For every MCP tool: the largest input the schemas allow, written
 * with the most expensive characters (the largest message, every reaction
 * slot taken) is read back whole and paged past, through the real daemon. Each result is also
 * checked against the worst case specs/limits.md computes for it.
 */

test.after(() => closeHttp());

// Each flavor runs against its own daemon; the three run side by side (they mostly wait on I/O).
describe('MCP tools at their limits', { concurrency: true }, () => {
  for (const [flavor, unit] of Object.entries(FLAVORS)) {
    it(`every MCP tool at its limits, ${flavor} characters: the largest message with every reaction slot taken, read and paged past`, async (t) => {
      const d = await startDaemon();
      t.after(() => d.close());
      // Each reactor may add a few emoji only, so filling every slot takes reactors per emoji × blocks of emoji, plus one more.
      const blocks = Math.ceil(LIMITS.reactionEmoji / LIMITS.reactionEmojiPerReactor);
      const agents = Array.from(
        { length: LIMITS.reactors * blocks + 1 },
        (_, i) => `r${i}.${'x'.repeat(LIMITS.agentId.chars - 3 - String(i).length)}`,
      );
      const reactor = (e: number, a: number) =>
        a + LIMITS.reactors * Math.floor(e / LIMITS.reactionEmojiPerReactor);
      const leases = await Promise.all(
        agents.map((agentId) => openLease(d as unknown as McpDaemon, { serverId: 's1', agentId })),
      );
      t.after(() => {
        for (const l of leases) l.close();
      });
      let id = 0;
      const tool = async (lease: (typeof leases)[number], name: string, args: unknown) => {
        const r = await rpc(lease.mcpUrl, lease.token(), {
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: { name, arguments: args },
        });
        assert.equal(r.status, 200, r.body.slice(0, 300));
        const frame = (
          JSON.parse(r.body) as {
            result: { isError: boolean; structuredContent?: any; content: { text: string }[] };
          }
        ).result;
        return { frame, bytes: Buffer.byteLength(JSON.stringify(frame)) };
      };
      const okTool = async (lease: (typeof leases)[number], name: string, args: unknown) => {
        const { frame, bytes } = await tool(lease, name, args);
        assert.equal(frame.isError, false, `${name}: ${frame.content[0]?.text.slice(0, 300)}`);
        assert.ok(
          bytes <= (WORST.get(name) ?? 0),
          `${name}: ${bytes} bytes over its computed worst case ${WORST.get(name)}`,
        );
        return frame.structuredContent;
      };
      const target = `dm:${'d'.repeat(128)}`;
      const first = await okTool(leases[0]!, 'message_send', {
        target,
        content: expensive(LIMITS.messageContent, unit, '0'),
      });
      const content = expensive(LIMITS.messageContent, unit, '1');
      const sent = (
        await okTool(leases[0]!, 'message_send', { target, content, replyTo: first.message.id })
      ).message;
      assert.equal(sent.content, content);
      // An emoji has no white space: U+2028 is white space, so that flavor writes its emoji with control characters.
      const emoji = (e: number) =>
        expensive(LIMITS.emoji, unit === FLAVORS.separator ? FLAVORS.control : unit, `:${e}`);
      let last: Awaited<ReturnType<typeof okTool>> | undefined;
      for (let e = 0; e < LIMITS.reactionEmoji; e++) {
        for (let a = 0; a < LIMITS.reactors; a++)
          last = await okTool(leases[reactor(e, a)]!, 'message_react', {
            messageId: sent.id,
            emoji: emoji(e),
          });
      }
      assert.equal(last.message.reactions.length, LIMITS.reactionEmoji);
      assert.ok(
        last.message.reactions.every(
          (r: { authors: string[] }) => r.authors.length === LIMITS.reactors,
        ),
      );
      // One more emoji, or one more reactor, is refused with its path, and changes nothing.
      const moreEmoji = await tool(leases[agents.length - 1]!, 'message_react', {
        messageId: sent.id,
        emoji: emoji(99),
      });
      const moreReactor = await tool(leases[agents.length - 1]!, 'message_react', {
        messageId: sent.id,
        emoji: emoji(0),
      });
      for (const r of [moreEmoji, moreReactor]) {
        assert.equal(r.frame.isError, true);
        const env = JSON.parse(r.frame.content[0]!.text);
        assert.equal(env.error.code, 'validation_failed');
        assert.equal(env.error.details[0].path, '/emoji');
      }
      const page = await okTool(leases[0]!, 'message_history_read', { target, limit: 1 });
      assert.deepEqual(page.messages[0], last.message);
      const past = await okTool(leases[0]!, 'message_history_read', {
        target,
        limit: 1,
        cursor: page.nextCursor,
      });
      assert.equal(past.messages[0].id, first.message.id);
      assert.equal(past.hasMore, false);
    });
  }
});
