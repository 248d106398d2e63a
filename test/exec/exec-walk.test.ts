import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '../../catalog/limits.js';
import { call, closeHttp, rpc } from '../../devkit/http.js';
import {
  cli,
  startDaemon,
  startRuntime,
  type Runtime,
  type Daemon as McpDaemon,
} from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { expensive } from '../../devkit/limits.js';

/**
 * Unfiltered and filtered walks over collections that hold items at maximum
 * size. The walker does what a runtime is told: on result_budget_exceeded it
 * sends exactly `next`; after a page that fits it goes back to the default
 * page size with nextCursor. Every item must be seen exactly once.
 */

test.after(() => closeHttp());

type Caller = (
  input: Record<string, unknown>,
) => Promise<{ ok: true; data: any } | { ok: false; error: any }>;

async function walk(
  name: string,
  send: Caller,
  field: string,
  start: Record<string, unknown>,
  idOf = (x: any) => x.id as string,
): Promise<{ ids: string[]; overBudget: number }> {
  const ids: string[] = [];
  let input: Record<string, unknown> = { ...start };
  let overBudget = 0;
  for (let calls = 0; calls < 1000; calls++) {
    const r = await send(input);
    if (!r.ok) {
      assert.equal(r.error.code, 'result_budget_exceeded', JSON.stringify(r.error).slice(0, 300));
      const next = r.error.next;
      assert.ok(next, `${name}: an over-budget page must say how to continue`);
      assert.equal(next.action, name);
      // Same filters and the same position; a smaller page.
      for (const [k, v] of Object.entries(input))
        if (k !== 'limit') assert.deepEqual(next.input[k], v, `${name}: next changed ${k}`);
      assert.ok(
        next.input.limit < ((input.limit as number | undefined) ?? 20),
        `${name}: next must ask for a smaller page`,
      );
      input = next.input;
      overBudget++;
      continue;
    }
    ids.push(...r.data[field].map(idOf));
    if (!r.data.hasMore) return { ids, overBudget };
    const { limit: _dropped, ...rest } = input;
    input = { ...rest, cursor: r.data.nextCursor };
  }
  throw new Error(`${name}: the walk did not end`);
}

const exec =
  (rt: Runtime, domain: string): Caller =>
  async (input) => {
    const r = await call(rt, domain, 'list', input);
    assert.ok(r.status === 200 || r.status === 422, r.text.slice(0, 300));
    return r.json;
  };

function once(ids: string[], expected: string[], what: string): void {
  assert.equal(new Set(ids).size, ids.length, `${what}: an item was seen twice`);
  assert.deepEqual([...ids].sort(), [...expected].sort(), `${what}: not every item was seen`);
}

test('an unfiltered walk over 200 tasks, some at maximum size, sees every task exactly once', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const created: string[] = [];
  const todoIds: string[] = [];
  // Created 10 at a time: the walk's order is the store's (updatedAt, id), not the order of creation.
  for (let batch = 0; batch < 200; batch += 10) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, j) => {
        const i = batch + j;
        const big = i % 7 === 3;
        const input = big
          ? {
              title: expensive(LIMITS.taskTitle, '\u0001', `${i}`),
              description: expensive(LIMITS.taskDescription, '\u0001', `${i}`),
              assignee: expensive(LIMITS.handle, '\u0001', `${i}`),
            }
          : { title: `task ${i}`, status: i % 2 === 0 ? 'todo' : 'done' };
        const r = await call(rt, 'task', 'create', input);
        assert.equal(r.status, 200, r.text.slice(0, 200));
        created.push(r.json.data.task.id);
        if (r.json.data.task.status === 'todo') todoIds.push(r.json.data.task.id);
      }),
    );
  }
  const all = await walk('task list', exec(rt, 'task'), 'tasks', {});
  once(all.ids, created, 'unfiltered');
  assert.ok(all.overBudget > 0, 'the walk met over-budget pages');
  // The same from an explicit large page and with a filter.
  const big = await walk('task list', exec(rt, 'task'), 'tasks', { limit: 100 });
  once(big.ids, created, 'limit 100');
  const todo = await walk('task list', exec(rt, 'task'), 'tasks', { status: 'todo', limit: 100 });
  once(todo.ids, todoIds, 'status todo');

  // Projects and reviews at their maximum walk the same way.
  const projects: string[] = [];
  const reviews: string[] = [];
  for (let i = 0; i < 6; i++) {
    const p = await call(rt, 'project', 'create', {
      name: expensive(LIMITS.projectName, '\u{1F600}', `${i}`),
      description: expensive(LIMITS.projectDescription, '\u0001', `${i}`),
    });
    projects.push(p.json.data.project.id);
    const r = await call(rt, 'review', 'add', {
      taskId: created[0],
      verdict: 'comment',
      body: expensive(LIMITS.reviewBody, '\u0001', `${i}`),
    });
    reviews.push(r.json.data.review.id);
  }
  once((await walk('project list', exec(rt, 'project'), 'projects', {})).ids, projects, 'projects');
  once(
    (await walk('review list', exec(rt, 'review'), 'reviews', { taskId: created[0], limit: 50 }))
      .ids,
    reviews,
    'reviews',
  );
});

test('teams and agents of a profile at its limits, and message history at its limits, walk to the end', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const name = (s: string) => expensive(LIMITS.profileName, '\u0001', s);
  const teams = Array.from({ length: 40 }, (_, i) => ({
    teamId: name(`t${i}`),
    handle: name(`h${i}`),
    displayName: name(`d${i}`),
    members: Array.from({ length: LIMITS.teamMembers }, (_, m) => ({
      kind: 'human',
      handle: `u${m}`.padEnd(LIMITS.agentId.chars, 'x'),
    })),
  }));
  const agents = Array.from({ length: 30 }, (_, i) => ({
    id: `a${i}`.padEnd(LIMITS.agentId.chars, 'x'),
    displayName: name(`a${i}`),
    model: name('m'),
    apiKeyEnv: name('k'),
    headers: Object.fromEntries(
      Array.from({ length: LIMITS.agentHeaders }, (_, h) => [name(`x${h}`), 'v']),
    ),
  }));
  writeFileSync(join(d.home, 'profile.json'), JSON.stringify({ agents, teams }));
  await cli(d.home, ['daemon', 'reload']);
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const teamWalk = await walk('team list', exec(rt, 'team'), 'teams', {}, (x) => x.teamId);
  once(
    teamWalk.ids,
    teams.map((x) => x.teamId),
    'teams',
  );
  assert.ok(teamWalk.overBudget > 0);
  once(
    (await walk('agent list', exec(rt, 'agent'), 'agents', { limit: 100 })).ids,
    agents.map((a) => a.id),
    'agents',
  );

  const lease = await openLease(d as unknown as McpDaemon, { serverId: 's1', agentId: 'walker' });
  t.after(() => lease.close());
  let id = 0;
  const tool = async (toolName: string, args: unknown) => {
    const r = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name: toolName, arguments: args },
    });
    const result = (
      JSON.parse(r.body) as {
        result: { isError: boolean; structuredContent?: any; content: { text: string }[] };
      }
    ).result;
    return result.isError
      ? JSON.parse(result.content[0]!.text)
      : { ok: true, data: result.structuredContent };
  };
  const target = 'channel:walk';
  const sent: string[] = [];
  for (let i = 0; i < 30; i++) {
    const content =
      i % 3 === 0 ? expensive(LIMITS.messageContent, '\u0001', `${i}`) : `message ${i}`;
    sent.push((await tool('message_send', { target, content })).data.message.id);
  }
  const history = await walk(
    'message_history_read',
    (input) => tool('message_history_read', input),
    'messages',
    { target, limit: 50 },
  );
  once(history.ids, sent, 'messages');
  assert.ok(history.overBudget > 0);
});
