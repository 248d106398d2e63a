import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { jsonBytes, LIMITS } from '../../catalog/limits.js';
import { startRuntime } from '../../devkit/daemon.js';
import { call, closeHttp } from '../../devkit/http.js';
import { startTurnDaemon, waitTurn } from '../../devkit/turns.js';

/*
 * A person's assignment starts the assignee's turn on the task's thread,
 * with the task in its prompt; assigning the same agent again, or any other
 * change, starts nothing; an agent assigning a task (to itself or another
 * agent) through Exec starts nothing either.
 */

test.after(() => closeHttp());

const prompts = (record: string) =>
  readdirSync(record).map(
    (f) => JSON.parse(readFileSync(join(record, f), 'utf8')) as { turn: string; prompt: string },
  );

test("a person's assignment starts the agent's turn on task:<id>; re-assigning and agents' assignments start none", {
  timeout: 120_000,
}, async (t) => {
  const { d, record } = await startTurnDaemon();
  t.after(() => d.close());
  const ok = async (args: string[]) => {
    const r = await d.cli(args);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return JSON.parse(r.stdout).data;
  };
  const turnsOn = async (target: string) =>
    ((await ok(['turn', 'list', '--limit', '100'])).turns as { target: string; id: string }[])
      .filter((x) => x.target === target)
      .map((x) => x.id);

  const created = await ok([
    'task',
    'create',
    'Fix the login bug',
    '--description',
    'Users see a blank page after signing in.',
    '--assignee',
    'a1',
    '--as',
    'human:ada',
  ]);
  const id = created.task.id as string;
  assert.equal(created.turns.length, 1);
  assert.equal(created.turns[0].agentId, 'a1');
  const turn = await waitTurn(d, created.turns[0].turnId);
  assert.equal(turn.state, 'succeeded');
  assert.equal(turn.target, `task:${id}`);
  assert.equal(turn.replied, true, 'the agent answered on the task thread');
  const { prompt } = prompts(record).find((p) => p.turn === turn.id)!;
  assert.match(prompt, new RegExp(`exactly this target: task:${id}`));
  assert.match(prompt, /human:ada assigned you the task/);
  assert.match(prompt, /Fix the login bug/);
  assert.match(prompt, /Users see a blank page after signing in\./);
  // The assignment is on the task's thread, written by the person, and the agent's answer after it.
  const history = (await ok(['message', 'history', '--target', `task:${id}`])).messages as {
    author: string;
  }[];
  assert.deepEqual(
    history.map((m) => m.author),
    ['agent:a1', 'human:ada'],
  );

  // The same agent again, under either spelling, and a status change: nothing new.
  assert.deepEqual((await ok(['task', 'assign', id, 'a1', '--as', 'human:ada'])).turns, []);
  assert.deepEqual((await ok(['task', 'assign', id, 'agent:a1', '--as', 'human:ada'])).turns, []);
  assert.deepEqual(
    (await ok(['task', 'update', id, '--status', 'in_progress', '--as', 'human:ada'])).turns,
    [],
  );
  // A replayed create answers as before and starts nothing.
  const keyed = ['task', 'create', 'Keyed', '--assignee', 'a1', '--idempotency-key', 'k-1'];
  const once = await ok([...keyed, '--as', 'human:ada']);
  assert.equal(once.turns.length, 1);
  await waitTurn(d, once.turns[0].turnId);
  assert.deepEqual((await ok([...keyed, '--as', 'human:ada'])).turns, []);
  assert.deepEqual(await turnsOn(`task:${once.task.id}`), [once.turns[0].turnId]);

  // The longest title and description: the assignment is cut to what one message holds, and says where the rest is.
  const long = await ok([
    'task',
    'create',
    'T'.repeat(LIMITS.taskTitle.chars),
    '--description',
    '\u0001'.repeat(LIMITS.taskDescription.chars),
    '--assignee',
    'a1',
    '--as',
    'human:ada',
  ]);
  assert.equal(long.turns.length, 1);
  const posted = (
    (await ok(['message', 'history', '--target', `task:${long.task.id}`])).messages as {
      author: string;
      content: string;
    }[]
  ).find((m) => m.author === 'human:ada');
  assert.ok(jsonBytes(posted!.content) <= LIMITS.messageContent.bytes);
  assert.ok([...posted!.content].length <= LIMITS.messageContent.chars);
  assert.match(posted!.content, /…\n\nRead the whole task with the Exec action task get/);
  await waitTurn(d, long.turns[0].turnId);

  // An agent assigns through Exec, to another agent and to itself: no turn.
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const made = await call(rt, 'task', 'create', { title: 'For the sleeper', assignee: 'sleeper' });
  assert.equal(made.status, 200, made.text);
  const other = made.json.data.task.id as string;
  assert.equal((await call(rt, 'task', 'update', { id: other, assignee: 'a1' })).status, 200);
  assert.equal((await call(rt, 'task', 'update', { id, assignee: 'sleeper' })).status, 200);
  assert.deepEqual(await turnsOn(`task:${other}`), []);
  assert.deepEqual(await turnsOn(`task:${id}`), [turn.id]);

  // A person hands the agent's task to the sleeper: its turn starts there.
  const handed = await ok(['task', 'assign', other, 'sleeper', '--as', 'human:ada']);
  assert.equal(handed.turns.length, 1);
  assert.equal(handed.turns[0].agentId, 'sleeper');
  const running = await waitTurn(d, handed.turns[0].turnId, ['running']);
  assert.equal(running.target, `task:${other}`);
  await ok(['turn', 'cancel', running.id]);
  assert.equal((await waitTurn(d, running.id)).state, 'cancelled');
});
