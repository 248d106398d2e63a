import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { LIMITS } from '../../catalog/limits.js';
import { signIn } from '../../devkit/console.js';
import { conversations, startConversationDaemon } from '../../devkit/conversations.js';
import { closeHttp, operatorCall, rawRequest } from '../../devkit/http.js';
import { waitTurn } from '../../devkit/turns.js';

/**
 * Conversations over plain HTTP: the list with the person's unread counts
 * (paged by the store's cursors), the post from the composer as the
 * profile's person under the console's rules (session, exact Origin, CSRF
 * token; the catalog's content limit; HTML inert), and the names the
 * composer completes (the profile's agents and teams, nothing else).
 */
test.after(() => closeHttp());

/** The catalog's limit of a message's text, in characters (its byte limit is checked as well). */
const MAX = LIMITS.messageContent.chars;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

async function postAs(
  d: { cli: (a: string[]) => Promise<{ code: number }> },
  who: string,
  target: string,
  text: string,
) {
  const r = await d.cli(['message', 'post', '--target', target, '--as', who, text]);
  assert.equal(r.code, 0);
}

test('conversations: unread counts per person, paging, post rules, inert HTML, completion names', async (t) => {
  const { d } = await startConversationDaemon({ broken: true });
  t.after(() => d.close());
  const s = await signIn(d);

  // No message yet: a DM with each agent of the profile, nothing unread.
  let list = await conversations(d);
  assert.equal(list.status, 200);
  assert.equal(list.data.person, 'human:ada');
  assert.deepEqual(
    list.data.conversations.map((c) => [c.target, c.unread]),
    [
      ['dm:a1', 0],
      ['dm:gated', 0],
      ['dm:broken', 0],
    ],
  );
  const page = await s.get('/console/conversations');
  assert.equal(page.status, 200);
  assert.match(
    page.body,
    /<a href="\/console\/conversations" aria-current="page">Conversations<\/a>/,
  );
  assert.match(page.body, /<tr data-target="dm:a1" data-kind="dm">/);

  // Others write: unread counts the messages after ada's mark that are not ada's own, most recent first.
  await postAs(d, 'human:bob', 'channel:general', 'one');
  await postAs(d, 'human:bob', 'channel:general', 'two');
  await postAs(d, 'human:ada', 'channel:general', 'mine');
  await postAs(d, 'human:bob', 'channel:random', 'three');
  list = await conversations(d);
  assert.deepEqual(
    list.data.conversations.map((c) => [c.target, c.kind, c.unread]),
    [
      ['channel:random', 'channel', 1],
      ['channel:general', 'channel', 2],
      ['dm:a1', 'dm', 0],
      ['dm:gated', 'dm', 0],
      ['dm:broken', 'dm', 0],
    ],
  );
  // bob's counts are bob's: he wrote everything but ada's line.
  const bob = await conversations(d, { person: 'bob' });
  assert.deepEqual(
    bob.data.conversations.slice(0, 2).map((c) => c.unread),
    [0, 1],
  );
  assert.match((await s.get('/console/conversations')).body, /data-unread="2"/);

  // Paged with the store's cursors; a cursor is bound to its person.
  const first = await conversations(d, { limit: '1' });
  assert.equal(first.status, 200, JSON.stringify(first.error));
  assert.equal(first.data.hasMore, true);
  assert.equal(first.data.conversations.length, 1);
  const second = await conversations(d, { limit: '1', cursor: first.data.nextCursor! });
  assert.equal(second.data.hasMore, false);
  assert.deepEqual(
    second.data.conversations.map((c) => c.target),
    ['channel:general', 'dm:a1', 'dm:gated', 'dm:broken'],
    'the DMs with no message come after the last conversation',
  );
  const foreign = await conversations(d, {
    limit: '1',
    cursor: first.data.nextCursor!,
    person: 'bob',
  });
  assert.equal(foreign.status, 400);
  assert.equal(foreign.error?.code, 'validation_failed');
  for (const limit of ['0', '101', 'x'])
    assert.equal((await conversations(d, { limit })).status, 400, `limit ${limit}`);
  assert.equal((await conversations(d, { limit: '100' })).status, 200);

  // Opening a conversation marks it read for ada.
  const general = await s.get('/console/conversation?server=local&target=channel:general');
  assert.equal(general.status, 200);
  list = await conversations(d);
  assert.equal(list.data.conversations.find((c) => c.target === 'channel:general')?.unread, 0);
  assert.equal(list.data.conversations.find((c) => c.target === 'channel:random')?.unread, 1);
  const mark = await operatorCall(d, 'POST', '/api/v1/conversations/read', {
    serverId: 'local',
    target: 'channel:random',
    upTo: 'msg_doesnotexist',
  });
  assert.equal(mark.status, 404);

  // The post: refused without the console's Origin or CSRF token, and nothing is stored.
  const csrf = csrfOf(general.body);
  assert.ok(csrf);
  const path = `${d.url}/console/conversation/post`;
  const body = new URLSearchParams({ target: 'dm:a1', server: 'local', content: 'hi' });
  const headers = { host: s.host, cookie: s.cookie, ...FORM };
  for (const [why, h, b, status] of [
    ['no CSRF token', { ...headers, origin: s.origin }, body.toString(), 403],
    ['wrong CSRF token', { ...headers, origin: s.origin }, `${body}&csrf=wrong`, 403],
    ['cross-origin', { ...headers, origin: 'http://evil.example' }, `${body}&csrf=${csrf}`, 403],
    ['no session', { host: s.host, origin: s.origin, ...FORM }, `${body}&csrf=${csrf}`, 401],
  ] as const)
    assert.equal((await rawRequest(path, 'POST', h, b)).status, status, why);
  list = await conversations(d);
  assert.equal(list.data.conversations.find((c) => c.target === 'dm:a1')?.lastAuthor, null);

  // Over the catalog's content limit: refused with its error, by form and by script; at the limit: stored.
  const over = await s.post(
    '/console/conversation/post',
    { target: 'channel:limits', server: 'local', content: 'x'.repeat(MAX + 1) },
    csrf,
  );
  assert.equal(over.status, 400);
  assert.match(over.body, /validation_failed/);
  const overScript = await rawRequest(
    path,
    'POST',
    { ...headers, origin: s.origin, 'x-console-fetch': '1' },
    new URLSearchParams({
      target: 'channel:limits',
      server: 'local',
      content: 'x'.repeat(MAX + 1),
      csrf,
    }).toString(),
  );
  assert.equal(overScript.status, 400);
  assert.equal(JSON.parse(overScript.body).error.code, 'validation_failed');
  const at = await s.post(
    '/console/conversation/post',
    { target: 'channel:limits', server: 'local', content: 'x'.repeat(MAX) },
    csrf,
  );
  assert.equal(at.status, 303);
  const badTarget = await s.post(
    '/console/conversation/post',
    { target: 'nowhere', server: 'local', content: 'x' },
    csrf,
  );
  assert.equal(badTarget.status, 400);

  // HTML in a message is text: stored as written, shown escaped, as ada; the agent's turn answers.
  const html = '<script>alert(1)</script><img src=x onerror=alert(2)>';
  const sent = await s.post(
    '/console/conversation/post',
    { target: 'dm:a1', server: 'local', content: html },
    csrf,
  );
  assert.equal(sent.status, 303);
  assert.equal(sent.headers.location, '/console/conversation?server=local&target=dm%3Aa1');
  const history = await operatorCall(d, 'GET', '/api/v1/messages?serverId=local&target=dm:a1');
  const mine = JSON.parse(history.body).data.messages[0];
  assert.equal(mine.author, 'human:ada');
  assert.equal(mine.content, html);
  const turns = JSON.parse(
    (await operatorCall(d, 'POST', '/api/v1/servers/local/reads/turn/list', { agent: 'a1' })).body,
  ).data.turns;
  await waitTurn(d, turns[0].id);
  const dm = await s.get('/console/conversation?server=local&target=dm:a1');
  assert.ok(!dm.body.includes('<script>alert'), 'no live script');
  assert.ok(!dm.body.includes('<img src=x'), 'no live element');
  assert.ok(dm.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.match(
    dm.body,
    new RegExp(`<li data-turn="${turns[0].id}" data-state="succeeded" data-agent="a1">`),
  );
  assert.match(dm.body, /data-reply-turn=/, 'the reply leads to its turn and audit rows');
  assert.match(dm.body, /href="\/console\/activity\/\d+"/);

  // Each message opens its thread, a conversation of its own the person writes in.
  const thread = `thread:${mine.id}`;
  assert.ok(
    dm.body.includes(`href="/console/conversation?server=local&amp;target=thread%3A${mine.id}"`),
  );
  const inThread = await s.post(
    '/console/conversation/post',
    { target: thread, server: 'local', content: 'in the thread' },
    csrf,
  );
  assert.equal(inThread.status, 303);
  assert.ok(
    (await conversations(d)).data.conversations.some(
      (c) => c.target === thread && c.kind === 'thread',
    ),
  );

  // A turn that cannot start says so under the message, with the reason.
  const failed = await s.post(
    '/console/conversation/post',
    { target: 'dm:broken', server: 'local', content: 'anyone there?' },
    csrf,
  );
  assert.equal(failed.status, 303);
  const brokenTurn = JSON.parse(
    (await operatorCall(d, 'POST', '/api/v1/servers/local/reads/turn/list', { agent: 'broken' }))
      .body,
  ).data.turns[0];
  assert.equal((await waitTurn(d, brokenTurn.id)).state, 'failed');
  const brokenPage = await s.get('/console/conversation?server=local&target=dm:broken');
  assert.match(
    brokenPage.body,
    new RegExp(`<li data-turn="${brokenTurn.id}" data-state="failed" data-agent="broken">`),
  );
  assert.match(brokenPage.body, /<span class="bad">failed: no_runtime/);

  // Completion names: the profile's agents and teams, nothing else (not bob, not the person).
  const names = await s.get('/console/conversation/names');
  assert.equal(names.status, 200);
  assert.deepEqual(JSON.parse(names.body), {
    agents: [
      { id: 'a1', displayName: 'Agent One' },
      { id: 'gated', displayName: 'Gated' },
      { id: 'broken', displayName: 'broken' },
    ],
    teams: [{ handle: 'crew', displayName: 'The crew' }],
  });
  assert.equal(
    (await rawRequest(`${d.url}/console/conversation/names`, 'GET', { host: s.host })).status,
    401,
  );

  // A task thread is a conversation page too; a bad target or cursor is said, not a 500.
  assert.equal((await s.get('/console/conversation?target=task:task_abcdef12')).status, 200);
  assert.match((await s.get('/console/conversation?target=bogus')).body, /No such conversation/);
  const badCursor = await s.get('/console/conversation?target=dm:a1&cursor=nope');
  assert.equal(badCursor.status, 200);
  assert.match(badCursor.body, /validation_failed/);
});
