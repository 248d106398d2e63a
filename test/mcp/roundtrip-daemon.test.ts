import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { call, closeHttp, post, rawRequest } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Daemon as McpDaemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import {
  acceptable,
  inputProp,
  jsonText,
  ruleOf,
  sameText,
  stringsFor,
  toolProp,
} from '../../devkit/roundtrip.js';

/**
 * The round trip of roundtrip-property.test.ts through the real daemon: a
 * share of the generated strings per field over the Exec route and MCP
 * message_send, read back identical; refusals leave nothing behind.
 */

const DAEMON_RUNS = Number(process.env.AGENTTEAM_PROPERTY_DAEMON_RUNS ?? 60);

test.after(() => closeHttp());

test(`round trip through the daemon: ${DAEMON_RUNS} generated strings per field over the Exec and MCP routes`, async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const lease = await openLease(d as unknown as McpDaemon, { serverId: 's1', agentId: 'prop' });
  t.after(() => lease.close());
  const base = (await call(rt, 'task', 'create', { title: 'base' })).json.data.task;
  const execCases: [
    string,
    string,
    string,
    (s: string) => Record<string, unknown>,
    (data: any) => Promise<unknown>,
  ][] = [
    [
      'task',
      'create',
      'description',
      (s) => ({ title: 't', description: s }),
      async (data) =>
        (await call(rt, 'task', 'get', { id: data.task.id })).json.data.task.description,
    ],
    [
      'task',
      'update',
      'title',
      (s) => ({ id: base.id, title: s }),
      async () => (await call(rt, 'task', 'get', { id: base.id })).json.data.task.title,
    ],
    [
      'project',
      'create',
      'name',
      (s) => ({ name: s }),
      async (data) =>
        (await call(rt, 'project', 'get', { id: data.project.id })).json.data.project.name,
    ],
    [
      'review',
      'add',
      'body',
      (s) => ({ taskId: base.id, verdict: 'comment', body: s }),
      async () => {
        const r = await call(rt, 'review', 'list', { taskId: base.id, limit: 1 });
        assert.equal(r.status, 200, r.text.slice(0, 300));
        return r.json.data.reviews[0].body;
      },
    ],
  ];
  const counts = { tasks: 1, projects: 0, reviews: 0 };
  for (const [domain, action, field, wrap, readBack] of execCases) {
    const rule = ruleOf(inputProp(domain, action, field));
    await fc.assert(
      fc.asyncProperty(stringsFor(rule), fc.boolean(), async (s, escaped) => {
        const r = await post(
          `${rt.base}/${domain}/${action}`,
          rt.token(),
          jsonText(wrap(s), escaped),
          { 'content-type': 'application/json' },
        );
        const want = acceptable(s, rule);
        assert.equal(
          r.status === 200,
          want,
          `${domain} ${action} ${field}: ${r.status} ${r.text.slice(0, 200)}`,
        );
        if (!want) {
          assert.equal(r.json.error.code, 'validation_failed');
          assert.ok(r.json.error.details.some((x: { path: string }) => x.path === `/${field}`));
          return;
        }
        if (action === 'create' && domain !== 'review')
          counts[domain === 'task' ? 'tasks' : 'projects']++;
        if (domain === 'review') counts.reviews++;
        sameText(await readBack(r.json.data), s, `${domain} ${action} ${field}`);
      }),
      { numRuns: DAEMON_RUNS },
    );
  }
  // Refused requests left nothing: the stores hold exactly the accepted ones.
  const total = async (domain: string, field: string, input: Record<string, unknown>) => {
    let n = 0;
    let cursor: string | undefined;
    do {
      // Pages of one: each item fits on its own, whatever its size.
      const page = (
        await call(rt, domain, 'list', { ...input, limit: 1, ...(cursor ? { cursor } : {}) })
      ).json.data;
      n += page[field].length;
      cursor = page.hasMore ? page.nextCursor : undefined;
    } while (cursor);
    return n;
  };
  assert.equal(await total('task', 'tasks', {}), counts.tasks);
  assert.equal(await total('project', 'projects', {}), counts.projects);
  assert.equal(await total('review', 'reviews', { taskId: base.id }), counts.reviews);

  const rule = ruleOf(toolProp('message_send', 'content'));
  let id = 0;
  let sent = 0;
  const target = 'channel:prop';
  await fc.assert(
    fc.asyncProperty(stringsFor(rule), fc.boolean(), async (s, escaped) => {
      const body = `{"jsonrpc":"2.0","id":${++id},"method":"tools/call","params":{"name":"message_send","arguments":${jsonText({ target, content: s }, escaped)}}}`;
      const r = await rawRequest(
        lease.mcpUrl,
        'POST',
        {
          authorization: `Bearer ${lease.token()}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      );
      const result = (
        JSON.parse(r.body) as { result: { isError: boolean; structuredContent?: any } }
      ).result;
      assert.equal(
        !result.isError,
        acceptable(s, rule),
        `message_send content: ${r.body.slice(0, 200)}`,
      );
      if (result.isError) return;
      sent++;
      sameText(result.structuredContent.message.content, s, 'message_send content (as returned)');
    }),
    { numRuns: DAEMON_RUNS },
  );
  // Refused sends left nothing: the target holds exactly the accepted messages.
  let stored = 0;
  let cursor: string | undefined;
  do {
    const history = await rawRequest(
      lease.mcpUrl,
      'POST',
      {
        authorization: `Bearer ${lease.token()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: {
          name: 'message_history_read',
          arguments: { target, limit: 1, ...(cursor ? { cursor } : {}) },
        },
      }),
    );
    // Pages of one: three messages at their largest, sent as text and as structured content, can outgrow the budget.
    const page = (
      JSON.parse(history.body) as {
        result: {
          structuredContent: { messages: unknown[]; hasMore: boolean; nextCursor?: string };
        };
      }
    ).result.structuredContent;
    assert.ok(page, `history page: ${history.body.slice(0, 300)}`);
    stored += page.messages.length;
    cursor = page.hasMore ? page.nextCursor : undefined;
  } while (cursor);
  assert.equal(stored, sent);
});
