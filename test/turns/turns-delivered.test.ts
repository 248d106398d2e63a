import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, startRuntime, type SpawnedDaemon } from '../../devkit/daemon.js';
import { call, closeHttp } from '../../devkit/http.js';
import { callTool } from '../../devkit/knowledge.js';
import { watchEvents } from '../../devkit/tools.js';
import { answerRuntime, post, waitTurn, type Turn } from '../../devkit/turns.js';

/**
 * Delivered turns through the public surface: a daemon started by the CLI
 * with a profile whose agents run a command runtime (a fixture that answers
 * with message_send), messages posted with `agentteam message post`, turns
 * read with `agentteam turn list | show`.
 */

let d: SpawnedDaemon;
let record: string;

before(async () => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-turns-'));
  record = join(home, 'record');
  mkdirSync(record);
  const work = join(home, 'work');
  mkdirSync(work);
  const agent = (id: string, extra: string[] = [], launch: Record<string, unknown> = {}) => ({
    id,
    runtime: 'generic',
    filesystem: { allowedPaths: [work] },
    launch: { command: answerRuntime([...extra, 'record', record]), ...launch },
  });
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        agent('a1'),
        agent('a2'),
        agent('slow', ['wait', join(home, 'release')]),
        agent('sleeper', ['sleep', '60000']),
        agent('late', ['sleep', '60000'], { deadlineSeconds: 1 }),
        agent('quiet', ['silent']),
        agent('broken', ['exit', '4']),
        agent('kb', ['kb']),
        agent('tiny', ['sleep', '60000'], { queueLimit: 1 }),
        { id: 'none', runtime: 'generic' },
        { id: 'lost', runtime: 'claude', launch: { binary: '/nonexistent/claude' } },
      ],
      teams: [
        {
          teamId: 'team1',
          handle: 'crew',
          members: [
            { kind: 'agent', handle: 'a1' },
            { kind: 'agent', handle: 'a2' },
            { kind: 'human', handle: 'ada' },
          ],
        },
      ],
    }),
  );
  d = await startDaemon({ home });
});
after(async () => {
  closeHttp();
  await d?.close();
});

test('a DM reaches its agent, which answers the exact target with replyTo', async () => {
  const { message, turns } = await post(d, 'dm:a1', 'Summarise yesterday');
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.agentId, 'a1');
  const t = await waitTurn(d, turns[0]!.turnId);
  assert.equal(t.state, 'succeeded');
  assert.equal(t.replied, true);
  assert.equal(t.exitStatus, 0);
  assert.deepEqual(t.messageIds, [message.id]);
  const history = await d.cli(['message', 'history', '--target', 'dm:a1']);
  const msgs = JSON.parse(history.stdout).data.messages as {
    author: string;
    replyTo: string | null;
    content: string;
  }[];
  const reply = msgs.find((m) => m.author === 'agent:a1');
  assert.ok(reply, history.stdout);
  assert.equal(reply.replyTo, message.id);
});

test('channel @agent and @team mentions, thread and task routing; agents start nothing', async () => {
  const ch = await post(d, 'channel:general', 'hey @a2 and @crew, look');
  assert.deepEqual(ch.turns.map((t) => t.agentId).sort(), ['a1', 'a2']);
  for (const t of ch.turns) assert.equal((await waitTurn(d, t.turnId)).state, 'succeeded');

  const none = await post(d, 'channel:general', 'mail me at ada@a1.example');
  assert.deepEqual(none.turns, []);

  // The thread's root mentions a1 (a2 is neither mentioned nor has it written in the thread).
  const root = await post(d, 'channel:general', 'a question for @a1');
  await waitTurn(d, root.turns[0]!.turnId);
  const inThread = await post(d, `thread:${root.message.id}`, 'and a follow-up');
  assert.deepEqual(
    inThread.turns.map((t) => t.agentId),
    ['a1'],
  );
  assert.equal((await waitTurn(d, inThread.turns[0]!.turnId)).state, 'succeeded');

  // A person cannot create tasks yet: a runtime of another agent does, through Exec.
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  const task = await call(rt, 'task', 'create', { title: 'Check the logs', assignee: 'a2' });
  await rt.close();
  assert.equal(task.status, 200, task.text);
  const taskId = task.json.data.task.id as string;
  const onTask = await post(d, `task:${taskId}`, 'please start');
  assert.deepEqual(
    onTask.turns.map((t) => t.agentId),
    ['a2'],
  );
  assert.equal((await waitTurn(d, onTask.turns[0]!.turnId)).replied, true);

  // The agents' own replies are stored in those targets: none of them queued a turn.
  const list = await d.cli(['turn', 'list', '--limit', '100']);
  const all = JSON.parse(list.stdout).data.turns as Turn[];
  assert.equal(all.filter((t) => t.messageIds.length === 0).length, 0);
  const byMessage = new Set(all.flatMap((t) => t.messageIds));
  const agentsMessages = JSON.parse(
    (await d.cli(['message', 'history', '--target', 'channel:general'])).stdout,
  ).data.messages.filter((m: { author: string }) => m.author.startsWith('agent:'));
  assert.ok(agentsMessages.length >= 2);
  for (const m of agentsMessages) assert.ok(!byMessage.has(m.id));
});

test('messages during a running turn join one next turn, oldest first', async () => {
  const first = await post(d, 'dm:slow', 'one');
  await waitTurn(d, first.turns[0]!.turnId, ['running']);
  const ids: string[] = [];
  for (const text of ['two', 'three', 'four']) {
    const p = await post(d, 'dm:slow', text);
    ids.push(p.message.id);
  }
  // The first turn answers only now: the three arrived while it ran.
  writeFileSync(join(d.home, 'release'), '');
  const list = JSON.parse((await d.cli(['turn', 'list', '--agent', 'slow'])).stdout).data
    .turns as Turn[];
  const second = list.find((t) => t.id !== first.turns[0]!.turnId)!;
  assert.deepEqual(second.messageIds, ids);
  const done = await waitTurn(d, second.id);
  assert.equal(done.state, 'succeeded');
  const prompts = readdirSync(record).map(
    (f) => JSON.parse(readFileSync(join(record, f), 'utf8')) as { prompt: string; turn: string },
  );
  const prompt = prompts.find((p) => p.turn === second.id)!.prompt;
  for (const id of ids) assert.match(prompt, new RegExp(`\\[${id}\\]`));
});

test('cancel stops the runtime; the deadline fails the turn with timeout', async () => {
  const p = await post(d, 'dm:sleeper', 'take your time');
  await waitTurn(d, p.turns[0]!.turnId, ['running']);
  const cancel = await d.cli(['turn', 'cancel', p.turns[0]!.turnId]);
  assert.equal(cancel.code, 0, cancel.stderr + cancel.stdout);
  const t = await waitTurn(d, p.turns[0]!.turnId);
  assert.equal(t.state, 'cancelled');
  assert.equal(t.error, 'cancelled');
  assert.equal(t.replied, false);

  const late = await post(d, 'dm:late', 'hurry');
  const lt = await waitTurn(d, late.turns[0]!.turnId);
  assert.equal(lt.state, 'failed');
  assert.equal(lt.error, 'timeout');

  const again = await d.cli(['turn', 'cancel', p.turns[0]!.turnId]);
  assert.notEqual(again.code, 0);
  assert.equal(JSON.parse(again.stdout).error.code, 'invalid_transition');
});

test('silence, failure, no runtime and a missing binary are states, not exceptions', async () => {
  const quiet = await waitTurn(d, (await post(d, 'dm:quiet', 'hello?')).turns[0]!.turnId);
  assert.deepEqual([quiet.state, quiet.replied], ['succeeded', false]);
  const broken = await waitTurn(d, (await post(d, 'dm:broken', 'go')).turns[0]!.turnId);
  assert.deepEqual(
    [broken.state, broken.error, broken.exitStatus],
    ['failed', 'runtime_failed', 4],
  );
  const none = await waitTurn(d, (await post(d, 'dm:none', 'go')).turns[0]!.turnId);
  assert.deepEqual([none.state, none.error], ['failed', 'no_runtime']);
  const lost = await waitTurn(d, (await post(d, 'dm:lost', 'go')).turns[0]!.turnId);
  assert.deepEqual([lost.state, lost.error], ['failed', 'runtime_not_found']);
  assert.match(lost.errorDetail ?? '', /\/nonexistent\/claude/);
  assert.match(none.errorDetail ?? '', /no launch.command/);
  const retried = await d.cli(['turn', 'retry', lost.id]);
  assert.equal(retried.code, 0, retried.stdout);
  const r = JSON.parse(retried.stdout).data.turn as Turn;
  assert.equal(r.retryOf, lost.id);
  assert.deepEqual(r.messageIds, lost.messageIds);
});

test('kb_search answers inside a delivered turn and is refused after it', async () => {
  const p = await post(d, 'dm:kb', 'search please');
  const t = await waitTurn(d, p.turns[0]!.turnId);
  assert.equal(t.state, 'succeeded');
  const history = JSON.parse((await d.cli(['message', 'history', '--target', 'dm:kb'])).stdout).data
    .messages as { author: string; content: string }[];
  const reply = history.find((m) => m.author === 'agent:kb')!;
  // Bound to the turn: the knowledge base is asked (none is configured here), not refused as unbound.
  assert.match(reply.content, /kb:/);
  assert.doesNotMatch(reply.content, /kb:turn_unbound/);
  // After the turn its authorization is revoked: the same credential is refused.
  const seen = readdirSync(record)
    .map(
      (f) =>
        JSON.parse(readFileSync(join(record, f), 'utf8')) as {
          turn: string;
          token: string;
          mcpUrl: string;
        },
    )
    .find((r) => r.turn === t.id)!;
  const res = await callTool(seen.mcpUrl, seen.token, 'kb_search', { query: 'anything' }).catch(
    (err: Error) => err,
  );
  assert.ok(res instanceof Error && /not accepted/.test(res.message), String(res));
});

test('a full queue records the turn dropped; apps see turn.started and turn.finished', async () => {
  // The event client reads the operator token from the daemon's home.
  const events = await watchEvents({ home: d.home, url: d.url } as never, [
    'turn.started',
    'turn.finished',
  ]);
  try {
    const first = await post(d, 'dm:tiny', 'one');
    await waitTurn(d, first.turns[0]!.turnId, ['running']);
    const queued = await post(d, 'channel:general', '@tiny two');
    assert.deepEqual(
      queued.turns.map((t) => [t.state, t.joined]),
      [['queued', false]],
    );
    // Another target: a new turn, beyond the queue of one.
    const dropped = await post(d, 'channel:ops', '@tiny three');
    assert.deepEqual(
      dropped.turns.map((t) => t.state),
      ['dropped'],
    );
    const shown = await waitTurn(d, dropped.turns[0]!.turnId);
    assert.deepEqual([shown.state, shown.error], ['dropped', 'queue_full']);
    // The same target as the queued one still joins it.
    const joined = await post(d, 'channel:general', '@tiny four');
    assert.deepEqual(
      joined.turns.map((t) => [t.turnId, t.joined]),
      [[queued.turns[0]!.turnId, true]],
    );
    const started = await events.next(
      (f) => f.type === 'turn.started' && f.data.turnId === first.turns[0]!.turnId,
    );
    assert.equal(started.data.agentId, 'tiny');
    assert.equal(started.data.target, 'dm:tiny');
    assert.equal(JSON.stringify(started.data).includes('one'), false);
    for (const t of [first, queued]) {
      await d.cli(['turn', 'cancel', t.turns[0]!.turnId]);
    }
    const finished = await events.next(
      (f) => f.type === 'turn.finished' && f.data.turnId === first.turns[0]!.turnId,
    );
    assert.equal(finished.data.state, 'cancelled');
  } finally {
    events.close();
  }
});
