import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { call, closeHttp } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { signIn } from '../../devkit/console.js';

/**
 * The Approvals page with more pending requests than one page holds: it says
 * how many wait, and the older ones are reached by paging (the operator
 * read's cursor), so one busy agent cannot hide another agent's request.
 */
test.after(() => closeHttp());

const ids = (html: string) =>
  [...html.matchAll(/<section class="card" data-approval="([^"]+)"/g)].map((m) => m[1]!);
const older = (html: string) =>
  /<a href="([^"]+)"[^>]*>Older requests/.exec(html)?.[1]?.replaceAll('&amp;', '&');

test('Approvals: 51 pending from two agents, the older one reachable by paging, the page says how many wait', {
  timeout: 120_000,
}, async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const b = await startRuntime(d, { server: 'local', agent: 'agent-b' });
  t.after(() => b.close());
  const a = await startRuntime(d, { server: 'local', agent: 'agent-a' });
  t.after(() => a.close());
  const first = await call(b, 'approval', 'request', { title: 'Rotate the signing key' });
  assert.equal(first.status, 200, first.text);
  const hidden = first.json.data.approval.id as string;
  for (let i = 0; i < 50; i++) {
    const r = await call(a, 'approval', 'request', { title: `Deploy build ${i}` });
    assert.equal(r.status, 200, r.text);
  }
  const c = await signIn(d);

  const newest = await c.get('/console/approvals');
  assert.equal(newest.status, 200);
  assert.match(newest.body, /51 waiting/);
  const onFirst = ids(newest.body);
  assert.equal(onFirst.length, 50);
  assert.ok(!onFirst.includes(hidden), "agent-b's request is older than the newest 50");

  const next = older(newest.body);
  assert.ok(next, 'a link to the older requests');
  const page2 = await c.get(next);
  assert.equal(page2.status, 200);
  assert.match(page2.body, /51 waiting/);
  assert.deepEqual(ids(page2.body), [hidden]);
  assert.equal(older(page2.body), undefined, 'nothing older');

  // Decided from the older page, it is gone and one fewer waits.
  const csrf = /name="csrf" value="([^"]+)"/.exec(page2.body)![1]!;
  const back = /name="back" value="([^"]+)"/.exec(page2.body)?.[1]?.replaceAll('&amp;', '&');
  assert.equal(back, next, "the page's form says where to come back to");
  const decided = await c.post(
    `/console/approvals/${hidden}/decide`,
    { decision: 'approve', back },
    csrf,
  );
  assert.equal(decided.status, 303, decided.body);
  assert.equal(decided.headers.location, next, 'back to the page it was decided on');
  assert.equal(
    (await call(b, 'approval', 'get', { id: hidden })).json.data.approval.status,
    'approved',
  );
  const after = await c.get('/console/approvals');
  assert.match(after.body, /50 waiting/);
  assert.equal(older(after.body), undefined);
  // The 50 newer requests still pending do not crowd the decision out of the Decided list either.
  assert.match(after.body, new RegExp(`<tr data-approval="${hidden}">`));
  // Only a link to an older approvals page is followed back; anything else returns to the newest page.
  const offsite = await c.post(
    `/console/approvals/${onFirst[0]}/decide`,
    { decision: 'reject', back: 'https://evil.example/' },
    csrf,
  );
  assert.equal(offsite.headers.location, '/console/approvals');
  assert.match((await c.get('/console/approvals')).body, /49 waiting/);
});
