import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import fc from 'fast-check';
import { LIMITS } from '../../catalog/limits.js';
import { parseProfile } from '../../daemon/profile/parse.js';
import type { MessageText, TurnLookup } from '../../daemon/store/turn-lookup.js';
import { turnPrompt } from '../../daemon/turns/prompt.js';
import { addressees } from '../../daemon/turns/routing.js';

const profile = parseProfile({
  agents: [{ id: 'a1' }, { id: 'a2' }, { id: 'b.3' }],
  teams: [
    {
      teamId: 't1',
      handle: 'crew',
      members: [
        { kind: 'agent', handle: 'a1' },
        { kind: 'agent', handle: 'a2' },
        { kind: 'agent', handle: 'gone' },
        { kind: 'human', handle: 'ada' },
      ],
    },
  ],
});

function lookup(messages: MessageText[], tasks: Record<string, string | null> = {}): TurnLookup {
  return {
    message: async (_s, id) => messages.find((m) => m.id === id) ?? null,
    wrote: async () => false,
    taskExists: async (_s, id) => id in tasks,
    agentAuthors: async (_s, target) => [
      ...new Set(
        messages
          .filter((m) => m.target === target && m.author.startsWith('agent:'))
          .map((m) => m.author),
      ),
    ],
    taskAssignee: async (_s, id) => tasks[id] ?? null,
  };
}

const msg = (target: string, content: string, author = 'human:ada') => ({
  serverId: 'local',
  target,
  author,
  content,
});

test('routing by target kind, mentions, teams and authors', async () => {
  const none = lookup([]);
  assert.deepEqual(await addressees(msg('dm:a1', 'hi'), profile, none), ['a1']);
  assert.deepEqual(await addressees(msg('dm:crew', 'hi'), profile, none), []);
  assert.deepEqual(await addressees(msg('dm:stranger', 'hi'), profile, none), []);
  assert.deepEqual(await addressees(msg('dm:a1', 'hi', 'agent:a2'), profile, none), []);
  assert.deepEqual(await addressees(msg('channel:x', '@crew and @b.3, also @a1.'), profile, none), [
    'a1',
    'a2',
    'b.3',
  ]);
  assert.deepEqual(
    await addressees(msg('channel:x', 'ada@a1.example a@a2 (@nobody) email@crew'), profile, none),
    [],
  );
  const root: MessageText = {
    id: 'msg_root01',
    target: 'channel:x',
    author: 'agent:b.3',
    content: 'ping @a2',
    createdAt: 0,
  };
  const answer: MessageText = {
    id: 'msg_ans001',
    target: 'thread:msg_root01',
    author: 'agent:a1',
    content: 'ok',
    createdAt: 1,
  };
  assert.deepEqual(
    await addressees(msg('thread:msg_root01', 'more'), profile, lookup([root, answer])),
    ['a2', 'b.3', 'a1'],
  );
  const tasks = { task_abc123: 'agent:a2', task_def456: 'ada', task_ghi789: null };
  assert.deepEqual(await addressees(msg('task:task_abc123', 'go'), profile, lookup([], tasks)), [
    'a2',
  ]);
  assert.deepEqual(await addressees(msg('task:task_def456', 'go'), profile, lookup([], tasks)), []);
  assert.deepEqual(
    await addressees(msg('task:task_ghi789', 'go @a1'), profile, lookup([], tasks)),
    ['a1'],
  );
});

test('property: only human messages reach anyone, and only agents of the profile, each once', async () => {
  const names = fc.constantFrom('a1', 'a2', 'b.3', 'crew', 'zed', 'ada');
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('human:ada', 'agent:a1', 'agent:zed'),
      fc.array(
        fc.oneof(
          names.map((n) => `@${n}`),
          fc.string({ maxLength: 8 }),
        ),
        { maxLength: 12 },
      ),
      async (author, words) => {
        const got = await addressees(
          msg('channel:x', words.join(' '), author),
          profile,
          lookup([]),
        );
        if (!author.startsWith('human:')) assert.deepEqual(got, []);
        assert.equal(new Set(got).size, got.length);
        for (const a of got) assert.ok(['a1', 'a2', 'b.3'].includes(a));
      },
    ),
  );
});

test('the prompt inlines text up to its byte budget and names the rest by id, never cut', () => {
  const [agent] = profile.agents;
  // The most expensive characters: 4 UTF-8 bytes each.
  const big = '😀'.repeat(LIMITS.turnPromptTextBytes / 4 / 2);
  const ms: MessageText[] = ['msg_aaaaaa', 'msg_bbbbbb', 'msg_cccccc'].map((id, i) => ({
    id,
    target: 'dm:a1',
    author: 'human:ada',
    content: big,
    createdAt: i,
  }));
  const text = turnPrompt(agent!, 'dm:a1', ms);
  // Two halves of the budget fit exactly; the third is referenced.
  assert.equal(text.split(big).length - 1, 2);
  assert.match(text, /\[msg_cccccc\] human:ada .*\(not inlined: \d+ bytes\)/);
  assert.match(text, /message_history_read on dm:a1/);
  assert.match(text, /exactly this target: dm:a1, with replyTo set to msg_cccccc\./);
  const one = turnPrompt(agent!, 'dm:a1', [{ ...ms[0]!, content: `${big}x` }, ms[1]!]);
  assert.equal(one.split(big).length - 1, 1);
});
