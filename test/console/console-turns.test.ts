import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { readOperatorToken } from '../../cli/daemon-client.js';
import { signIn } from '../../devkit/console.js';
import { closeHttp, rawRequest } from '../../devkit/http.js';
import { post, runtimePid, startTurnDaemon, waitTurn } from '../../devkit/turns.js';
import { alive } from '../../devkit/wait.js';

/**
 * The Turns page over plain HTTP (no browser needed): what it shows, and
 * that cancelling from it holds to the console's rules (session, exact
 * Origin, CSRF token) before anything is stopped, and returns only to a
 * console page.
 */
test.after(() => closeHttp());

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

test('Turns page: a running turn with a confirmed cancel; cancelling needs session, Origin and CSRF token', async (t) => {
  const { d, record } = await startTurnDaemon();
  t.after(() => d.close());
  const token = readOperatorToken(d.home);
  const s = await signIn(d);
  for (const path of [
    '/console/turns',
    '/console/turn?server=local&id=turn_abcdefgh',
    '/console/live/turns',
  ]) {
    const r = await rawRequest(`${d.url}${path}`, 'GET', { host: s.host });
    assert.equal(r.status, 401, path);
  }
  assert.equal(
    (
      await rawRequest(`${d.url}/console/turns`, 'GET', {
        host: new URL(d.url).host,
        cookie: s.cookie,
      })
    ).status,
    421,
    'only under the console name',
  );

  const id = (await post(d, 'dm:sleeper', 'Take your time')).turns[0]!.turnId;
  await waitTurn(d, id, ['running']);
  const page = await s.get('/console/turns');
  assert.equal(page.status, 200);
  assert.ok(page.headers['content-security-policy']);
  assert.match(page.body, new RegExp(`<tr data-turn="${id}" data-state="running">`));
  assert.match(
    page.body,
    /data-confirm="Cancel the turn of sleeper on dm:sleeper\? Its runtime is stopped at once\."/,
  );
  assert.match(page.body, /<a href="\/console\/turns" aria-current="page">Turns<\/a>/);
  assert.ok(!page.body.includes(token), 'never the operator token');
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf);

  const path = `${d.url}/console/turns/local/${id}/cancel`;
  const form = { host: s.host, cookie: s.cookie, ...FORM };
  const refused: [string, Record<string, string>, string, number][] = [
    ['cross-origin', { ...form, origin: 'http://evil.example' }, `csrf=${csrf}`, 403],
    ['no Origin', form, `csrf=${csrf}`, 403],
    ['the daemon under another name', { ...form, origin: d.url }, `csrf=${csrf}`, 403],
    ['no CSRF token', { ...form, origin: s.origin }, '', 403],
    ['wrong CSRF token', { ...form, origin: s.origin }, 'csrf=wrong', 403],
    ['no session', { host: s.host, ...FORM, origin: s.origin }, `csrf=${csrf}`, 401],
  ];
  for (const [why, headers, body, status] of refused)
    assert.equal((await rawRequest(path, 'POST', headers, body)).status, status, why);
  assert.equal((await waitTurn(d, id, ['running'])).state, 'running', 'nothing was stopped');
  const pid = await runtimePid(record, id);
  assert.ok(alive(pid));

  // Accepted: back to the list (never to an address outside the console), the turn cancelled, its runtime gone.
  const ok = await s.post(
    `/console/turns/local/${id}/cancel`,
    { back: 'https://evil.example/' },
    csrf,
  );
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.location, '/console/turns');
  assert.equal((await waitTurn(d, id)).state, 'cancelled');
  for (const until = Date.now() + 10_000; alive(pid) && Date.now() < until; )
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(pid), false);
  const after = await s.get('/console/turns');
  assert.match(after.body, new RegExp(`<tr data-turn="${id}" data-state="cancelled">`));

  // From a turn's detail the answer returns to that detail; the detail shows the turn and its (no) calls.
  const next = (await post(d, 'dm:sleeper', 'Again')).turns[0]!.turnId;
  await waitTurn(d, next, ['running']);
  const detail = await s.get(`/console/turn?server=local&id=${next}`);
  assert.equal(detail.status, 200);
  assert.match(detail.body, /No call recorded in this turn\./);
  const back = `/console/turn?server=local&id=${next}`;
  const fromDetail = await s.post(`/console/turns/local/${next}/cancel`, { back }, csrf);
  assert.equal(fromDetail.status, 303);
  assert.equal(fromDetail.headers.location, back);
  assert.equal((await waitTurn(d, next)).state, 'cancelled');
  // Cancelling an ended turn shows the daemon's refusal, not an error page of the console's own.
  const again = await s.post(`/console/turns/local/${next}/cancel`, {}, csrf);
  assert.equal(again.status >= 400 && again.status < 500, true, String(again.status));
  assert.match(again.body, /role="alert"/);
});
