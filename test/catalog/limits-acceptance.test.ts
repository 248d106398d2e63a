import { describe, it, test } from 'node:test';
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '../../catalog/limits.js';
import { call, closeHttp } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime } from '../../devkit/daemon.js';
import { AGENT, expensive, FLAVORS, ok, pagedOneByOne } from '../../devkit/limits.js';

/**
 * For every action and tool: the largest input the schemas allow, written
 * with the most expensive characters, is created, read back whole, listed in
 * a page of one and paged past, through the real daemon. Each result is also
 * checked against the worst case specs/limits.md computes for it.
 */

test.after(() => closeHttp());

function maxProfile(unit: string) {
  const name = (s: string) => expensive(LIMITS.profileName, unit, s);
  // Agent ids and member handles follow the id grammar (ASCII letters, digits, . _ -): their longest spelling is ASCII.
  const agentId = (i: number) => `a${i}`.padEnd(LIMITS.agentId.chars, 'x');
  const agents = [0, 1].map((i) => ({
    id: agentId(i),
    displayName: name(`d${i}`),
    runtime: 'claude',
    model: name(`m${i}`),
    baseUrl: `https://example.com/${'p'.repeat(LIMITS.profileUrl.chars - 'https://example.com/'.length)}`,
    apiKeyEnv: name(`k${i}`),
    headers: Object.fromEntries(
      Array.from({ length: LIMITS.agentHeaders }, (_, h) => [
        name(`h${String(h).padStart(2, '0')}`),
        'v',
      ]),
    ),
  }));
  const teams = Array.from({ length: LIMITS.agentTeams }, (_, t) => ({
    teamId: name(`t${String(t).padStart(2, '0')}`),
    handle: name(`th${t}`),
    displayName: name(`td${t}`),
    members: Array.from({ length: LIMITS.teamMembers }, (_, m) =>
      m < 2
        ? { kind: 'agent', handle: agentId(m) }
        : { kind: 'human', handle: `u${m}`.padEnd(LIMITS.agentId.chars, 'x') },
    ),
  }));
  return { agents, teams };
}

// Each flavor runs against its own daemon; the three run side by side (they mostly wait on I/O).
describe('Exec actions at their limits', { concurrency: true }, () => {
  for (const [flavor, unit] of Object.entries(FLAVORS)) {
    it(`every Exec action at its limits, ${flavor} characters: created, read, listed one by one, paged past`, async (t) => {
      const d = await startDaemon();
      t.after(() => d.close());
      writeFileSync(join(d.home, 'profile.json'), JSON.stringify(maxProfile(unit)));
      await cli(d.home, ['daemon', 'reload']);
      const rt = await startRuntime(d, { server: 's1', agent: AGENT });
      t.after(() => rt.close());

      const projects: any[] = [];
      for (const i of [0, 1]) {
        const input = {
          name: expensive(LIMITS.projectName, unit, `${i}`),
          description: expensive(LIMITS.projectDescription, unit, `${i}`),
          idempotencyKey: `${'p'.repeat(126)}-${i}`,
        };
        const { project } = ok(await call(rt, 'project', 'create', input), 'project create');
        assert.equal(project.name, input.name);
        assert.equal(project.description, input.description);
        projects.push(project);
        assert.deepEqual(
          ok(await call(rt, 'project', 'get', { id: project.id }), 'project get').project,
          project,
        );
      }
      await pagedOneByOne(rt, 'project', 'projects', {}, projects.map((p) => p.id).reverse());

      const tasks: any[] = [];
      for (const i of [0, 1]) {
        const input = {
          title: expensive(LIMITS.taskTitle, unit, `${i}`),
          description: expensive(LIMITS.taskDescription, unit, `${i}`),
          status: 'in_progress',
          assignee: expensive(LIMITS.handle, unit, `${i}`),
          projectId: projects[0].id,
          idempotencyKey: `${'t'.repeat(126)}-${i}`,
        };
        const { task } = ok(await call(rt, 'task', 'create', input), 'task create');
        for (const k of ['title', 'description', 'assignee'] as const)
          assert.equal(task[k], input[k]);
        assert.deepEqual(ok(await call(rt, 'task', 'get', { id: task.id }), 'task get').task, task);
        const update = {
          id: task.id,
          title: expensive(LIMITS.taskTitle, unit, `u${i}`),
          description: expensive(LIMITS.taskDescription, unit, `u${i}`),
          assignee: expensive(LIMITS.handle, unit, `u${i}`),
          projectId: projects[1].id,
          expectedRevision: 1,
          idempotencyKey: `${'u'.repeat(126)}-${i}`,
        };
        const updated = ok(await call(rt, 'task', 'update', update), 'task update').task;
        assert.equal(updated.description, update.description);
        tasks.push(updated);
      }
      await pagedOneByOne(
        rt,
        'task',
        'tasks',
        { status: 'in_progress' },
        tasks.map((x) => x.id).reverse(),
      );

      const reviews: any[] = [];
      for (const i of [0, 1]) {
        const input = {
          taskId: tasks[0].id,
          verdict: 'request_changes',
          body: expensive(LIMITS.reviewBody, unit, `${i}`),
          idempotencyKey: `${'r'.repeat(126)}-${i}`,
        };
        const { review } = ok(await call(rt, 'review', 'add', input), 'review add');
        assert.equal(review.body, input.body);
        assert.equal(review.author, AGENT);
        reviews.push(review);
      }
      await pagedOneByOne(
        rt,
        'review',
        'reviews',
        { taskId: tasks[0].id },
        reviews.map((x) => x.id).reverse(),
      );

      const profile = maxProfile(unit);
      for (const a of profile.agents) {
        const { agent } = ok(await call(rt, 'agent', 'get', { id: a.id }), 'agent get');
        assert.equal(agent.displayName, a.displayName);
        assert.equal(agent.headerNames.length, LIMITS.agentHeaders);
        assert.equal(agent.teams.length, LIMITS.agentTeams);
      }
      await pagedOneByOne(rt, 'agent', 'agents', {}, profile.agents.map((a) => a.id).sort(), 'id');
      for (const team of profile.teams.slice(0, 2)) {
        const got = ok(await call(rt, 'team', 'get', { teamId: team.teamId }), 'team get').team;
        assert.deepEqual(got.members, team.members);
      }
      const teamOrder = [...profile.teams]
        .sort((a, b) =>
          a.displayName < b.displayName ? -1 : a.displayName > b.displayName ? 1 : 0,
        )
        .map((x) => x.teamId);
      await pagedOneByOne(rt, 'team', 'teams', {}, teamOrder.slice(0, 3), 'teamId', 3);
    });
  }
});
