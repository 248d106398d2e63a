import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { LIMITS } from '../../catalog/limits.js';
import { openLease } from '../../devkit/lease.js';
import { rpc } from '../../devkit/http.js';
import { startDaemon } from '../../devkit/daemon.js';

/** Reaction slots are shared by everyone: one reactor may take only a few of them, and a refusal says what still works. */
test('message reactions: one agent cannot fill every emoji slot of a message; each refusal hint names what still works', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const leases = await Promise.all(
    ['author', 'greedy', 'b', 'c', 'late'].map((agentId) =>
      openLease(d, { serverId: 's1', agentId }),
    ),
  );
  t.after(() => {
    for (const l of leases) l.close();
  });
  const [author, greedy, b, c, late] = leases as [
    (typeof leases)[number],
    (typeof leases)[number],
    (typeof leases)[number],
    (typeof leases)[number],
    (typeof leases)[number],
  ];
  let id = 0;
  const tool = async (lease: typeof author, name: string, args: unknown) => {
    const r = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    assert.equal(r.status, 200, r.body.slice(0, 300));
    return (
      JSON.parse(r.body) as {
        result: { isError: boolean; structuredContent?: any; content: { text: string }[] };
      }
    ).result;
  };
  const sent = (await tool(author, 'message_send', { target: 'dm:someone', content: 'hello' }))
    .structuredContent.message;
  const react = (lease: typeof author, emoji: string) =>
    tool(lease, 'message_react', { messageId: sent.id, emoji });

  // The greedy agent tries to take all 8 slots of someone else's message.
  const emoji = Array.from({ length: LIMITS.reactionEmoji }, (_, i) => `:e${i}:`);
  for (const e of emoji.slice(0, LIMITS.reactionEmojiPerReactor))
    assert.equal((await react(greedy, e)).isError, false);
  const refused = await react(greedy, emoji[LIMITS.reactionEmojiPerReactor]!);
  assert.equal(refused.isError, true);
  const env = JSON.parse(refused.content[0]!.text);
  assert.equal(env.error.code, 'validation_failed');
  assert.equal(env.error.details[0].path, '/emoji');
  assert.match(env.error.message, new RegExp(`${LIMITS.reactionEmojiPerReactor} distinct emoji`));
  assert.equal(env.error.hint, 'Reply with a message instead.');
  // Reacting again with one it already used still changes nothing and succeeds.
  assert.equal((await react(greedy, emoji[0]!)).isError, false);

  // Others can still react; fill the remaining slots with other reactors.
  let next = LIMITS.reactionEmojiPerReactor;
  for (const who of [b, c]) {
    for (let k = 0; k < LIMITS.reactionEmojiPerReactor && next < LIMITS.reactionEmoji; k++)
      assert.equal((await react(who, emoji[next++]!)).isError, false);
  }
  const full = (await tool(author, 'message_history_read', { target: 'dm:someone' }))
    .structuredContent.messages[0];
  assert.equal(full.reactions.length, LIMITS.reactionEmoji);

  // A ninth emoji is refused; the hint names emoji on the message that still take a reactor, and one of them works.
  const ninth = JSON.parse((await react(late, ':new:')).content[0]!.text);
  assert.equal(ninth.error.code, 'validation_failed');
  assert.match(
    ninth.error.message,
    new RegExp(`already has ${LIMITS.reactionEmoji} distinct emoji`),
  );
  assert.equal(
    ninth.error.hint,
    `React with one of the emoji already on the message that has room: ${emoji.join(' ')}.`,
  );
  assert.equal((await react(late, emoji[0]!)).isError, false);
});
