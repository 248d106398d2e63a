import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { rawRequest, closeHttp } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { signIn } from '../../devkit/console.js';
import { signInUrl } from '../../devkit/browser.js';
import { readOperatorToken } from '../../cli/daemon-client.js';

/**
 * The console's security properties over plain HTTP, with a session signed in
 * as a person does: pages refuse no cookie or a forged one, and a form post
 * needs the console's own Origin, the session's CSRF token and its cookie.
 */
test.after(() => closeHttp());

const raw = (url: string, method: string, headers: Record<string, string>, body = '') =>
  rawRequest(url, method, headers, body);

test('security: no cookie, cross-origin POST, POST without CSRF token are refused', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const operatorToken = readOperatorToken(d.home);
  const session = await signIn(d);
  const co = session.origin;
  const cookie = session.cookie;
  const host = { host: session.host };
  for (const path of [
    '/console/',
    '/console/runtimes',
    '/console/activity',
    '/console/approvals',
    '/console/live/runtimes',
  ]) {
    const r = await raw(`${d.url}${path}`, 'GET', host);
    assert.equal(r.status, 401, path);
    assert.ok(r.headers['content-security-policy'], `CSP on ${path}`);
  }
  const wrongCookie = await raw(`${d.url}/console/runtimes`, 'GET', {
    ...host,
    cookie: 'agentteam_console=forged',
  });
  assert.equal(wrongCookie.status, 401);
  const rt = await startRuntime(d, { server: 's1', agent: 'victim' });
  t.after(() => rt.close());
  const id = JSON.parse(
    (await raw(`${d.url}/api/v1/runtimes`, 'GET', { authorization: `Bearer ${operatorToken}` }))
      .body,
  ).data.runtimes.find((r: { agentId: string }) => r.agentId === 'victim').authorizationId;
  const csrf = /name="csrf" value="([^"]+)"/.exec(
    (await raw(`${d.url}/console/runtimes`, 'GET', { ...host, cookie })).body,
  )?.[1];
  assert.ok(csrf);
  const form = { ...host, cookie, 'content-type': 'application/x-www-form-urlencoded' };
  const path = `${d.url}/console/runtimes/${id}/revoke`;
  assert.equal(
    (await raw(path, 'POST', { ...form, origin: 'http://evil.example' }, `csrf=${csrf}`)).status,
    403,
    'cross-origin',
  );
  assert.equal((await raw(path, 'POST', form, `csrf=${csrf}`)).status, 403, 'no Origin');
  assert.equal(
    (await raw(path, 'POST', { ...form, origin: d.url }, `csrf=${csrf}`)).status,
    403,
    'the daemon under another name is not the console',
  );
  assert.equal((await raw(path, 'POST', { ...form, origin: co }, '')).status, 403, 'no CSRF token');
  assert.equal(
    (await raw(path, 'POST', { ...form, origin: co }, 'csrf=wrong')).status,
    403,
    'wrong CSRF token',
  );
  assert.equal(
    (
      await raw(
        path,
        'POST',
        { ...host, 'content-type': 'application/x-www-form-urlencoded', origin: co },
        `csrf=${csrf}`,
      )
    ).status,
    401,
    'no cookie',
  );
  const still = JSON.parse(
    (await raw(`${d.url}/api/v1/runtimes`, 'GET', { authorization: `Bearer ${operatorToken}` }))
      .body,
  ).data.runtimes;
  assert.ok(
    still.some((r: { authorizationId: string }) => r.authorizationId === id),
    'nothing was revoked',
  );
  assert.equal(
    (await raw(path, 'POST', { ...form, origin: co }, `csrf=${csrf}`)).status,
    303,
    'the same request from the page works',
  );
  // the sign-in itself wants an Origin
  const code = new URL(await signInUrl(d)).searchParams.get('code')!;
  assert.equal(
    (
      await raw(
        `${d.url}/console/login`,
        'POST',
        { ...host, 'content-type': 'application/x-www-form-urlencoded' },
        `code=${code}`,
      )
    ).status,
    403,
  );
});
