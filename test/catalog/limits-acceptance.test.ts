import { describe, it, test } from 'node:test';
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCatalog } from '../../catalog/catalog.js';
import { LIMITS, RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import { worstCaseRows } from '../../scripts/gen/limits.js';
import { call, closeHttp, type HttpResult, rpc } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime, type Daemon as McpDaemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { expensive, FLAVORS } from '../../devkit/limits.js';

/**
 * For every action and tool: the largest input the schemas allow, written
 * with the most expensive characters, is created, read back whole, listed in
 * a page of one and paged past, through the real daemon. Each result is also
 * checked against the worst case specs/limits.md computes for it.
 */

test.after(() => closeHttp());

const worst = new Map(worstCaseRows(defaultCatalog()).map((r) => [r.name, r.bytes]));
const AGENT = `agent.${'x'.repeat(LIMITS.agentId.chars - 6)}`;

function ok(r: HttpResult, name: string): any {
  assert.equal(r.status, 200, `${name}: ${r.text.slice(0, 300)}`);
  const bytes = Buffer.byteLength(r.text);
  assert.ok(
    bytes <= (worst.get(name) ?? 0),
    `${name}: ${bytes} bytes is over its computed worst case ${worst.get(name)}`,
  );
  assert.ok(bytes <= RESULT_BUDGET_BYTES);
  return r.json.data;
}

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

/** Lists with limit 1 from the start, following nextCursor: each page fits, and the ids come in the expected order. */
async function pagedOneByOne(
  rt: Awaited<ReturnType<typeof startRuntime>>,
  domain: string,
  field: string,
  filters: Record<string, unknown>,
  expected: string[],
  idField = 'id',
  stopAfter = Infinity,
): Promise<void> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const data = ok(
      await call(rt, domain, 'list', { ...filters, limit: 1, ...(cursor ? { cursor } : {}) }),
      `${domain} list`,
    );
    assert.equal(data[field].length, 1);
    seen.push(data[field][0][idField]);
    if (!data.hasMore || seen.length >= stopAfter) break;
    cursor = data.nextCursor;
  }
  assert.deepEqual(seen, expected);
}

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
          bytes <= (worst.get(name) ?? 0),
          `${name}: ${bytes} bytes over its computed worst case ${worst.get(name)}`,
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
      let last: any;
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

// The domains added beside tasks and messages, each at its limits, through the real daemon.
describe('Schedules, approvals, workflows and agent admin at their limits', {
  concurrency: true,
}, () => {
  for (const [flavor, unit] of Object.entries(FLAVORS)) {
    it(`schedules, approvals, workflows and agent admin at their limits, ${flavor} characters`, async (t) => {
      const d = await startDaemon();
      t.after(() => d.close());
      const rt = await startRuntime(d, { server: 's1', agent: AGENT });
      t.after(() => rt.close());
      const decider = await startRuntime(d, { server: 's1', agent: 'decider' });
      t.after(() => decider.close());

      const schedules: any[] = [];
      for (const i of [0, 1]) {
        const input = {
          target: `dm:${'d'.repeat(128)}`,
          content: expensive(LIMITS.messageContent, unit, `${i}`),
          cron: '0 9 * * 1',
          timeZone: 'America/Argentina/ComodRivadavia',
          idempotencyKey: `${'s'.repeat(126)}-${i}`,
        };
        const { scheduledMessage } = ok(
          await call(rt, 'scheduled-message', 'create', input),
          'scheduled-message create',
        );
        assert.equal(scheduledMessage.content, input.content);
        assert.deepEqual(
          ok(
            await call(rt, 'scheduled-message', 'get', { id: scheduledMessage.id }),
            'scheduled-message get',
          ).scheduledMessage,
          scheduledMessage,
        );
        schedules.push(scheduledMessage);
      }
      await pagedOneByOne(
        rt,
        'scheduled-message',
        'scheduledMessages',
        {},
        schedules.map((x) => x.id).reverse(),
      );

      const approvals: any[] = [];
      for (const i of [0, 1]) {
        const input = {
          title: expensive(LIMITS.approvalTitle, unit, `${i}`),
          detail: expensive(LIMITS.approvalDetail, unit, `${i}`),
          idempotencyKey: `${'a'.repeat(126)}-${i}`,
        };
        const { approval } = ok(await call(rt, 'approval', 'request', input), 'approval request');
        assert.deepEqual([approval.title, approval.detail], [input.title, input.detail]);
        assert.deepEqual(
          ok(await call(rt, 'approval', 'get', { id: approval.id }), 'approval get').approval,
          approval,
        );
        approvals.push(approval);
      }
      const note = expensive(LIMITS.decisionNote, unit, 'n');
      const decided = ok(
        await call(decider, 'approval', 'decide', {
          id: approvals[0].id,
          decision: 'reject',
          note,
        }),
        'approval decide',
      ).approval;
      assert.equal(decided.note, note);
      const over = await call(decider, 'approval', 'decide', {
        id: approvals[1].id,
        decision: 'reject',
        note: `\u0001${note}`,
      });
      assert.equal(over.json.error.code, 'validation_failed');
      await pagedOneByOne(rt, 'approval', 'approvals', {}, approvals.map((x) => x.id).reverse());

      // The largest plan: every step at its limits; its run shows all steps with the longest notes.
      // A step name is trimmed, so one made of separators (white space to JavaScript) starts with a letter.
      const stepName = { chars: LIMITS.stepName.chars - 1, bytes: LIMITS.stepName.bytes - 1 };
      const steps = Array.from({ length: LIMITS.planSteps }, (_, i) => ({
        name: `n${expensive(stepName, unit, `s${i}`)}`,
        description: expensive(LIMITS.stepDescription, unit, `${i}`),
      }));
      const planInput = {
        op: 'create',
        name: expensive(LIMITS.planName, unit, 'p'),
        description: expensive(LIMITS.planDescription, unit, 'p'),
        steps,
      };
      const { plan } = ok(await call(rt, 'workflow', 'plan', planInput), 'workflow plan');
      assert.deepEqual([plan.name, plan.description], [planInput.name, planInput.description]);
      assert.deepEqual(
        ok(
          await call(rt, 'workflow', 'plan', { op: 'version', id: plan.id, version: 1 }),
          'workflow plan',
        ).version.steps,
        steps,
      );
      ok(await call(rt, 'workflow', 'plan', { op: 'publish', id: plan.id }), 'workflow plan');
      const started = ok(
        await call(rt, 'workflow', 'run', { op: 'start', planId: plan.id }),
        'workflow run',
      );
      for (const [i, st] of started.steps.entries()) {
        const done = ok(
          await call(rt, 'workflow', 'step', {
            op: 'complete',
            id: st.id,
            note: expensive(LIMITS.stepNote, unit, `${i}`),
          }),
          'workflow step',
        );
        assert.equal(done.step.note, expensive(LIMITS.stepNote, unit, `${i}`));
      }
      const shown = ok(
        await call(rt, 'workflow', 'run', { op: 'show', id: started.run.id }),
        'workflow run',
      );
      assert.equal(shown.run.status, 'completed');
      assert.equal(shown.steps.length, LIMITS.planSteps);
      let logs = 0;
      let cursor: string | undefined;
      for (;;) {
        const page = ok(
          await call(rt, 'workflow', 'run', {
            op: 'logs',
            id: started.run.id,
            limit: 1,
            ...(cursor ? { cursor } : {}),
          }),
          'workflow run',
        );
        logs += page.logs.length;
        if (!page.hasMore) break;
        cursor = page.nextCursor;
      }
      assert.ok(logs >= 2 * LIMITS.planSteps, `${logs} log entries`);

      // Agent admin at the profile limits.
      // Through Exec a profile name or URL takes only the code points that always fit its bytes (6 a control character); profile.json may hold longer ones.
      const asInput = (l: { chars: number; bytes: number }) => ({
        chars: Math.min(l.chars, Math.floor(l.bytes / 6)),
        bytes: l.bytes,
      });
      const name = (s: string) => expensive(asInput(LIMITS.profileName), unit, s);
      const id = 'n'.repeat(LIMITS.agentId.chars);
      const baseUrl = `https://example.com/${'p'.repeat(asInput(LIMITS.profileUrl).chars - 'https://example.com/'.length)}`;
      const created = ok(
        await call(rt, 'agent', 'create', {
          id,
          displayName: name('d'),
          runtime: 'claude',
          model: name('m'),
          baseUrl,
          apiKeyEnv: 'K'.repeat(128),
        }),
        'agent create',
      );
      assert.equal(created.agent.displayName, name('d'));
      const updated = ok(
        await call(rt, 'agent', 'update', {
          id,
          displayName: name('e'),
          expectedRevision: created.revision,
        }),
        'agent update',
      );
      assert.equal(updated.agent.displayName, name('e'));
      assert.deepEqual(
        ok(await call(rt, 'agent', 'get', { id }), 'agent get').agent,
        updated.agent,
      );
      ok(await call(rt, 'workspace', 'get', {}), 'workspace get');
      ok(await call(rt, 'profile', 'get', {}), 'profile get');
      assert.equal(ok(await call(rt, 'agent', 'delete', { id }), 'agent delete').deleted.id, id);
    });
  }
});
