import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { openDb } from '../daemon/store/db.js';
import { TeamServer } from '../daemon/store/team-server.js';
import { SqliteSql } from '../daemon/store/sqlite-sql.js';
import { MessageStore } from '../daemon/store/messages.js';
import { loadInputValidator, type InputCheck } from '../lib/input-validators.js';
import { createToolHost } from '../daemon/mcp/tool-host.js';
import type { ToolHost } from '../daemon/tools/contracts.js';
import { messageToolHandlers } from '../daemon/mcp/message-tools.js';
import { sharedBoundary } from '../daemon/mcp/boundary.js';
import { ToolRegistry } from '../daemon/tools/registry.js';
import { MCP_TOOLS } from '../catalog/mcp-tools.js';
import { systemClock } from '../lib/clock.js';
import { ExecError } from '../daemon/errors/exec-error.js';
import { gateWith } from './gate.js';
import type { startInProc } from './inproc.js';
import {
  decode,
  inputProp,
  jsonText,
  ruleOf,
  RUNS,
  sameText,
  toolProp,
  type FieldRule,
} from './roundtrip.js';

/**
 * Every stored string field, in process: the daemon's JSON decoder, the
 * generated validators, the store and the MCP tool host, each field with a
 * way to send a string in its place and to count its rows. Fields kept in
 * profile.json go through the in-process daemon the test file opens.
 */

export interface Field {
  readonly name: string;
  readonly path: string;
  readonly rule: FieldRule;
  /** Sends an input with the string in place; returns whether it was accepted, after checking the read back. */
  run(s: string, escaped: boolean): Promise<boolean>;
  /** Rows in the field's table, to prove a refusal left no trace. */
  count(): number;
  /** A check of meaning past the limits that the store makes (a blank step name), if any. */
  readonly meaningful?: (s: string) => boolean;
  /** Fewer cases than RUNS, for a field whose every accepted case writes a file. */
  readonly runs?: number;
}

export async function inProcessFields(
  t: TestContext,
  open: typeof startInProc,
): Promise<{ fields: Field[]; close(): void }> {
  const db = openDb(':memory:');
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const sql = new SqliteSql(db, ':memory:');
  const server = await TeamServer.open(sql, () => ++clock);
  const api = server.forCaller({ serverId: 's1', agentId: 'a1' });
  // An agent cannot decide its own request; another agent of the server decides.
  const other = server.forCaller({ serverId: 's1', agentId: 'a2' });
  const messages = new MessageStore(sql, { ...systemClock, now: () => ++clock });
  const host: ToolHost = createToolHost(
    new ToolRegistry(),
    MCP_TOOLS.filter((t) => t.name.startsWith('message_')),
    messageToolHandlers(messages),
    sharedBoundary(gateWith()),
  );
  const ctx = {
    principal: {
      authorizationId: 'auth',
      serverId: 's1',
      agentId: 'a1',
      sessionId: null,
      runId: null,
      workdir: null,
      primaryThreadId: null,
      turn: null,
    },
    threadId: null,
    signal: new AbortController().signal,
  };
  const counters = new Map<string, () => number>();
  const rows = (table: string) => {
    let f = counters.get(table);
    if (!f) {
      const stmt = db.prepare(`SELECT count(*) AS n FROM ${table}`);
      f = () => (stmt.get() as { n: number }).n;
      counters.set(table, f);
    }
    return f();
  };
  const columnReads = new Map<string, ReturnType<typeof db.prepare>>();
  const column = (table: string, name: string, id: string) => {
    const key = `${table}.${name}`;
    let stmt = columnReads.get(key);
    if (!stmt) {
      stmt = db.prepare(`SELECT ${name} AS v FROM ${table} WHERE id = ?`);
      columnReads.set(key, stmt);
    }
    return (stmt.get(id) as { v: unknown }).v;
  };
  const checks = new Map<string, InputCheck>();
  for (const [d, a] of [
    ['task', 'create'],
    ['task', 'update'],
    ['project', 'create'],
    ['review', 'add'],
    ['approval', 'request'],
    ['approval', 'decide'],
    ['scheduled-message', 'create'],
    ['workflow', 'plan'],
    ['workflow', 'step'],
    ['agent', 'create'],
    ['agent', 'update'],
  ]) {
    checks.set(`${d} ${a}`, (await loadInputValidator(d!, a!))!);
  }
  const { task: base } = await api.createTask({ title: 'base' });

  /** Validates as the daemon does; refused input must name the field. */
  function validate(
    action: string,
    text: string,
    path: string,
  ): Record<string, unknown> | undefined {
    const input = decode(text);
    const verdict = checks.get(action)!(input);
    if (verdict.ok) return input;
    assert.ok(
      verdict.details.some((x) => x.path === path),
      `${action}: refusal names ${path}: ${JSON.stringify(verdict.details)}`,
    );
    return undefined;
  }
  const execField = (
    action: string,
    field: string,
    table: string,
    send: (input: any) => Promise<Record<string, unknown>>,
    wrap: (s: string) => Record<string, unknown>,
  ): Field => {
    const [d, a] = action.split(' ') as [string, string];
    return {
      name: `${action} ${field}`,
      path: `/${field}`,
      rule: ruleOf(inputProp(d, a, field)),
      count: () => rows(table),
      async run(s, escaped) {
        const input = validate(action, jsonText(wrap(s), escaped), `/${field}`);
        if (!input) return false;
        const record = await send(input);
        sameText(record[field], s, `${action} ${field}`);
        // And in the table itself, not only as the store hands it back.
        sameText(column(table, field, record.id as string), s, `${table}.${field}`);
        return true;
      },
    };
  };
  const getTask = async (id: string) =>
    (await api.getTask({ id })).task as unknown as Record<string, unknown>;
  const fields: Field[] = [
    ...(['title', 'description', 'assignee'] as const).map((f) =>
      execField(
        'task create',
        f,
        'tasks',
        async (i) => getTask((await api.createTask(i)).task.id),
        (s) => ({ title: 't', [f]: s }),
      ),
    ),
    ...(['title', 'description', 'assignee'] as const).map((f) =>
      execField(
        'task update',
        f,
        'tasks',
        async (i) => {
          await api.updateTask(i);
          return getTask(base.id);
        },
        (s) => ({ id: base.id, [f]: s }),
      ),
    ),
    ...(['name', 'description'] as const).map((f) =>
      execField(
        'project create',
        f,
        'projects',
        async (i) =>
          (await api.getProject({ id: (await api.createProject(i)).project.id }))
            .project as unknown as Record<string, unknown>,
        (s) => ({ name: 'p', [f]: s }),
      ),
    ),
    // Added, then read back as the newest review of the thread.
    execField(
      'review add',
      'body',
      'reviews',
      async (i) => {
        await api.addReview(i);
        return (await api.listReviews({ taskId: base.id, limit: 1 }))
          .reviews[0] as unknown as Record<string, unknown>;
      },
      (s) => ({ taskId: base.id, verdict: 'comment', body: s }),
    ),
    ...(['title', 'detail'] as const).map((f) =>
      execField(
        'approval request',
        f,
        'approvals',
        async (i) =>
          (await api.getApproval({ id: (await api.requestApproval(i)).approval.id }))
            .approval as unknown as Record<string, unknown>,
        (s) => ({ title: 'a', [f]: s }),
      ),
    ),
    // A fresh approval per accepted note: validated first, so a refused note creates nothing.
    execField(
      'approval decide',
      'note',
      'approvals',
      async (i) => {
        const { approval } = await api.requestApproval({ title: 'to decide' });
        await other.decideApproval({ ...i, id: approval.id });
        return (await api.getApproval({ id: approval.id })).approval as unknown as Record<
          string,
          unknown
        >;
      },
      (s) => ({ id: 'appr_000000', decision: 'approve', note: s }),
    ),
    execField(
      'scheduled-message create',
      'content',
      'scheduled_messages',
      async (i) =>
        (await api.getSchedule({ id: (await api.createSchedule(i)).scheduledMessage.id }))
          .scheduledMessage as unknown as Record<string, unknown>,
      (s) => ({ target: 'channel:later', at: '2030-01-01T00:00:00Z', content: s }),
    ),
    ...(['name', 'description'] as const).map((f) =>
      execField(
        'workflow plan',
        f,
        'wf_plans',
        async (i) =>
          (
            await api.workflowPlan({
              op: 'show',
              id: (await api.workflowPlan(i)).plan!.id,
            } as never)
          ).plan as unknown as Record<string, unknown>,
        (s) => ({ op: 'create', name: 'p', steps: [{ name: 's' }], [f]: s }),
      ),
    ),
  ];

  // Step names and descriptions live in a plan version (JSON in wf_plan_versions.steps), by plan create and by plan update with steps.
  // The store trims a step name and refuses a blank one: that is checked (meaningful) and the read back is the trimmed name.
  const stepProp = (f: 'name' | 'description') =>
    (
      inputProp('workflow', 'plan', 'steps').items as {
        properties: Record<string, Record<string, unknown>>;
      }
    ).properties[f]!;
  const stepsJson = db.prepare(
    'SELECT steps AS v FROM wf_plan_versions WHERE plan_id = ? AND version = ?',
  );
  const { plan: basePlan } = await api.workflowPlan({
    op: 'create',
    name: 'base',
    steps: [{ name: 'only' }],
  } as never);
  const stepField = (op: 'create' | 'update', f: 'name' | 'description'): Field => ({
    name: `workflow plan ${op} steps[].${f}`,
    path: `/steps/0/${f}`,
    rule: ruleOf(stepProp(f)),
    count: () => rows('wf_plan_versions'),
    ...(f === 'name' ? { meaningful: (s: string) => s.trim() !== '' } : {}),
    async run(s, escaped) {
      const step = f === 'name' ? { name: s } : { name: 's', description: s };
      const input = validate(
        'workflow plan',
        jsonText(
          op === 'create'
            ? { op, name: 'p', steps: [step] }
            : { op, id: basePlan!.id, steps: [step] },
          escaped,
        ),
        `/steps/0/${f}`,
      );
      if (!input) return false;
      let out: { plan?: { id: string }; version?: { version: number } };
      try {
        out = (await api.workflowPlan(input as never)) as typeof out;
      } catch (err) {
        // The store's own refusal (a blank name) names the same path.
        assert.ok(
          err instanceof ExecError &&
            err.code === 'validation_failed' &&
            (err.extra.details ?? []).some((x) => x.path === `/steps/0/${f}`),
          String(err),
        );
        return false;
      }
      const want = f === 'name' ? s.trim() : s;
      const { version } = (await api.workflowPlan({
        op: 'version',
        id: out.plan!.id,
        version: out.version!.version,
      } as never)) as { version: { steps: Record<string, string>[] } };
      sameText(version.steps[0]![f], want, `workflow plan ${op} steps[].${f}`);
      const row = stepsJson.get(out.plan!.id, out.version!.version) as { v: string };
      sameText(
        (JSON.parse(row.v) as Record<string, string>[])[0]![f],
        want,
        `wf_plan_versions.steps[].${f}`,
      );
      return true;
    },
  });
  fields.push(
    stepField('create', 'name'),
    stepField('create', 'description'),
    stepField('update', 'name'),
    stepField('update', 'description'),
  );

  // Step notes: a fresh one-step run per accepted note (validated first, so a refused note starts nothing), then the transition with the note.
  const { plan: runPlan } = await api.workflowPlan({
    op: 'create',
    name: 'runs',
    steps: [{ name: 'only' }],
  } as never);
  await api.workflowPlan({ op: 'publish', id: runPlan!.id } as never);
  for (const op of ['complete', 'fail', 'pause', 'park'] as const) {
    fields.push({
      name: `workflow step ${op} note`,
      path: '/note',
      rule: ruleOf(inputProp('workflow', 'step', 'note')),
      count: () => rows('wf_runs') + rows('wf_steps'),
      async run(s, escaped) {
        const input = validate(
          'workflow step',
          jsonText({ op, id: 'step_000000', note: s }, escaped),
          '/note',
        );
        if (!input) return false;
        const { steps } = (await api.workflowRun({
          op: 'start',
          planId: runPlan!.id,
        } as never)) as { steps: { id: string }[] };
        const id = steps[0]!.id;
        await api.workflowStep({ ...input, id } as never);
        sameText(
          ((await api.workflowStep({ op: 'get', id } as never)) as { step: { note: string } }).step
            .note,
          s,
          `workflow step ${op} note`,
        );
        sameText(column('wf_steps', 'note', id), s, 'wf_steps.note');
        return true;
      },
    });
  }

  // Agent displayName and model are written to profile.json by the daemon's handlers (the Exec route in process); read back by agent get and from
  // the file. Not here: id (an agent id pattern), baseUrl (a URL), apiKeyEnv (an environment variable name) and runtime (an enum) are validated for meaning.
  // A refusal must leave the profile revision as it was.
  const p = await open(t);
  const profileFile = join(p.home, 'profile.json');
  const agentCall = await p.runtime('s1', 'a1');
  const revisions = new Map<string, number>();
  const revisionNo = () => {
    const r = p.services.profile.revision;
    if (!revisions.has(r)) revisions.set(r, revisions.size);
    return revisions.get(r)!;
  };
  const ok = (r: { status: number; json: any }, what: string) => {
    assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.json).slice(0, 300)}`);
    return r.json.data;
  };
  ok(await agentCall('agent', 'create', { id: 'prop-base' }), 'agent create');
  let agentSeq = 0;
  for (const action of ['create', 'update'] as const) {
    for (const f of ['displayName', 'model'] as const) {
      fields.push({
        name: `agent ${action} ${f}`,
        path: `/${f}`,
        rule: ruleOf(inputProp('agent', action, f)),
        count: revisionNo,
        // Each accepted case rewrites profile.json (twice for create): a quarter of the cases keeps the run time small.
        runs: Math.ceil(RUNS / 4),
        async run(s, escaped) {
          const id = action === 'create' ? `prop-${++agentSeq}` : 'prop-base';
          const input = validate(`agent ${action}`, jsonText({ id, [f]: s }, escaped), `/${f}`);
          if (!input) return false;
          ok(await agentCall('agent', action, input), `agent ${action}`);
          sameText(
            ok(await agentCall('agent', 'get', { id }), 'agent get').agent[f],
            s,
            `agent ${action} ${f}`,
          );
          const doc = JSON.parse(readFileSync(profileFile, 'utf8')) as {
            agents: Record<string, unknown>[];
          };
          sameText(doc.agents.find((a) => a.id === id)![f], s, `profile.json ${f}`);
          // Created agents are removed again, so the file stays small.
          if (action === 'create') ok(await agentCall('agent', 'delete', { id }), 'agent delete');
          return true;
        },
      });
    }
  }

  let seq = 0;
  const tool = async (name: string, text: string) => {
    const out = await host.call(name, decode(text), ctx);
    assert.ok(out.ok);
    return JSON.parse(out.resultJson) as {
      isError: boolean;
      structuredContent?: any;
      content: { text: string }[];
    };
  };
  const toolRefused = (r: { content: { text: string }[] }, path: string) => {
    const env = JSON.parse(r.content[0]!.text) as {
      error: { code: string; details: { path: string }[] };
    };
    assert.equal(env.error.code, 'validation_failed');
    assert.ok(
      env.error.details.some((x) => x.path === path),
      JSON.stringify(env.error),
    );
  };
  fields.push({
    name: 'message_send content',
    path: '/content',
    rule: ruleOf(toolProp('message_send', 'content')),
    count: () => rows('messages'),
    async run(s, escaped) {
      const target = `channel:c${++seq}`;
      const r = await tool('message_send', jsonText({ target, content: s }, escaped));
      if (r.isError) {
        toolRefused(r, '/content');
        return false;
      }
      const stored = (await messages.history({ serverId: 's1', target, limit: 1 })).messages[0]!;
      sameText(stored.content, s, 'message content');
      sameText(column('messages', 'content', stored.id), s, 'messages.content');
      return true;
    },
  });
  fields.push({
    name: 'message_react emoji',
    path: '/emoji',
    rule: ruleOf(toolProp('message_react', 'emoji')),
    // Each case reacts to a fresh message; a refusal must leave that message without reactions.
    count: () => 0,
    async run(s, escaped) {
      const target = `channel:r${++seq}`;
      const m = await messages.send({ serverId: 's1', target, author: 'agent:a1', content: 'x' });
      const r = await tool('message_react', jsonText({ messageId: m.id, emoji: s }, escaped));
      if (r.isError) {
        toolRefused(r, '/emoji');
        assert.deepEqual(
          (await messages.history({ serverId: 's1', target, limit: 1 })).messages[0]!.reactions,
          [],
        );
        return false;
      }
      sameText(
        (await messages.history({ serverId: 's1', target, limit: 1 })).messages[0]!.reactions[0]!
          .emoji,
        s,
        'emoji',
      );
      return true;
    },
  });
  return { fields, close: () => db.close() };
}
