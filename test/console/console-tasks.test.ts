import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { closeHttp, rawRequest } from '../../devkit/http.js';
import { startDaemon } from '../../devkit/daemon.js';
import { signIn } from '../../devkit/console.js';

/**
 * The Tasks pages over plain HTTP: their forms need the session, the
 * console's Origin and the CSRF token like every console action; what a
 * person types is shown as text, never markup; bad input comes back as the
 * catalog's refusal; and what the console writes is the console person's,
 * in the store and in the audit trail.
 */
test.after(() => closeHttp());

test("Tasks pages: forms refused without session, Origin or CSRF token; text escaped; refusals carry the catalog code; writes are the person's", async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const s = await signIn(d);
  for (const path of ['/console/tasks', '/console/task?id=task_000000', '/console/tasks/new'])
    assert.equal((await rawRequest(`${d.url}${path}`, 'GET', { host: s.host })).status, 401, path);
  const page = await s.get('/console/tasks/new');
  assert.equal(page.status, 200);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf);
  const title = '<script>alert(1)</script> & "quotes"';
  const create = '/console/tasks/local/create';
  const bare = {
    host: s.host,
    cookie: s.cookie,
    'content-type': 'application/x-www-form-urlencoded',
  };
  const body = new URLSearchParams({ title, csrf }).toString();
  assert.equal(
    (
      await rawRequest(
        `${d.url}${create}`,
        'POST',
        { ...bare, origin: 'http://evil.example' },
        body,
      )
    ).status,
    403,
    'cross-origin',
  );
  assert.equal((await s.post(create, { title }, 'wrong')).status, 403, 'wrong CSRF token');
  assert.equal(
    (await rawRequest(`${d.url}${create}`, 'POST', { ...bare, origin: s.origin, cookie: '' }, body))
      .status,
    401,
    'no session',
  );
  const listed = async () =>
    JSON.parse((await d.cli(['task', 'list'])).stdout).data.tasks as {
      id: string;
      title: string;
    }[];
  assert.deepEqual(await listed(), [], 'nothing was created');

  const made = await s.post(create, { title, description: 'line one\nline two' }, csrf);
  assert.equal(made.status, 303);
  const [task] = await listed();
  assert.equal(task!.title, title);
  assert.equal(made.headers.location, `/console/task?server=local&id=${task!.id}`);
  const view = (await s.get(made.headers.location as string)).body;
  assert.ok(!view.includes('<script>alert(1)'), 'the title is text');
  assert.ok(view.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;'));
  assert.ok((await s.get('/console/tasks')).body.includes('&lt;script&gt;alert(1)'));

  // The catalog's refusals, shown with their codes.
  const empty = await s.post(create, { title: '' }, csrf);
  assert.equal(empty.status, 400);
  assert.match(empty.body, /validation_failed/);
  const project = await s.post(create, { title: 'x', projectId: 'project_000000' }, csrf);
  assert.equal(project.status, 404);
  assert.match(project.body, /not_found/);
  const stale = await s.post(
    `/console/tasks/local/${task!.id}/state`,
    { status: 'done', revision: '7' },
    csrf,
  );
  assert.equal(stale.status, 409);
  assert.match(stale.body, /revision_conflict/);
  assert.equal(
    (
      await s.post(
        `/console/tasks/local/${task!.id}/assign`,
        { assignee: 'bob', revision: '1' },
        csrf,
      )
    ).status,
    303,
  );
  const after = JSON.parse((await d.cli(['task', 'get', task!.id])).stdout).data.task;
  assert.equal(after.assignee, 'bob');

  // The audit trail names the console's person for each write, refused ones too.
  let tools: string[] = [];
  for (const until = Date.now() + 10_000; Date.now() < until; ) {
    const r = await d.cli(['audit', '--agent', 'human:operator', '--json']);
    tools = JSON.parse(r.stdout).data.entries.map(
      (e: { tool: string; outcome: string }) => `${e.tool} ${e.outcome}`,
    );
    if (tools.length >= 5) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(tools.sort(), [
    'task/create not_found',
    'task/create ok',
    'task/create validation_failed',
    'task/update ok',
    'task/update revision_conflict',
  ]);
});
