import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import { rawRequest, closeHttp } from '../../devkit/http.js';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, startDaemon } from '../../devkit/daemon.js';
import { readOperatorToken } from '../../cli/daemon-client.js';

/**
 * The console over plain HTTP (no browser needed, so these run everywhere):
 * `agentteam console` and its one-time code, the cookie, refusals without a
 * session, Origin or CSRF token, the headers on every response, and the
 * operator token never in a console response.
 */
test.after(() => closeHttp());

const raw = (url: string, method: string, headers: Record<string, string>, body = '') =>
  rawRequest(url, method, headers, body);

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

test('agentteam console without a daemon exits 3 and says so', async () => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-console-'));
  try {
    const r = await cli(home, ['console']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /no daemon/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('console over HTTP: one-time code, cookie, refusals, headers, no operator token', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const token = readOperatorToken(d.home);
  const link = async () => {
    const r = await cli(d.home, ['console']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /signs in once, until \d{4}-/);
    return new URL(r.stdout.trim());
  };
  const code = async () => (await link()).searchParams.get('code')!;
  // The console has a host name of its own; requests go to the daemon's address under that Host.
  const first = await link();
  assert.match(first.host, /^agentteam-[0-9a-f]{32}\.localhost:\d+$/);
  assert.equal(first.port, new URL(d.url).port);
  const origin = first.origin;
  const host = { host: first.host };
  const bodies: string[] = [];
  const get = async (path: string, cookie?: string) => {
    const r = await raw(`${d.url}${path}`, 'GET', { ...host, ...(cookie ? { cookie } : {}) });
    bodies.push(r.body);
    return r;
  };

  // the operator route needs the operator token
  assert.equal(
    (await raw(`${d.url}/api/v1/console/codes`, 'POST', { host: new URL(d.url).host })).status,
    403,
  );

  const c1 = await code();
  const login = await raw(
    `${d.url}/console/login`,
    'POST',
    { ...host, ...FORM, origin },
    `code=${c1}`,
  );
  assert.equal(login.status, 303);
  assert.equal(login.headers.location, '/console/');
  const set = String(login.headers['set-cookie']);
  assert.match(
    set,
    /^agentteam_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict$/,
  );
  assert.ok(!set.includes(token));
  const cookie = set.split(';')[0]!;
  const again = await raw(
    `${d.url}/console/login`,
    'POST',
    { ...host, ...FORM, origin },
    `code=${c1}`,
  );
  assert.equal(again.status, 403, 'a second use is refused');
  assert.equal(again.headers['set-cookie'], undefined);

  // Under any other name of the daemon the console is not there: the session cookie opens nothing, no cookie can be set,
  // and the refusal does not give the console's name away; the console's name reaches nothing but the console.
  const port = new URL(d.url).port;
  for (const other of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
    for (const path of [
      '/console/',
      '/console/approvals',
      '/console/login',
      '/console/assets/console.js',
    ]) {
      const r = await raw(`${d.url}${path}`, 'GET', { host: other, cookie });
      assert.equal(r.status, 421, `${other}${path}`);
      assert.ok(!r.body.includes(first.hostname), 'the refusal does not name the console');
      assert.doesNotMatch(r.body, /name="csrf"/);
    }
    const elsewhere = await code();
    const post = await raw(
      `${d.url}/console/login`,
      'POST',
      { host: other, ...FORM, origin: `http://${other}` },
      `code=${elsewhere}`,
    );
    assert.equal(post.status, 421, other);
    assert.equal(post.headers['set-cookie'], undefined);
  }
  assert.equal(
    (await raw(`${d.url}/api/v1/status`, 'GET', { ...host, authorization: `Bearer ${token}` }))
      .status,
    403,
    'the console name on an operator route',
  );
  assert.equal(
    (await raw(`${d.url}/console/login`, 'POST', { ...host, ...FORM, origin }, 'code=made-up'))
      .status,
    403,
  );
  const c2 = await code();
  assert.equal(
    (
      await raw(
        `${d.url}/console/login`,
        'POST',
        { ...host, ...FORM, origin: 'http://evil.example' },
        `code=${c2}`,
      )
    ).status,
    403,
    'foreign Origin',
  );
  // A foreign Origin (refused by the daemon's Host/Origin check) or none is refused before the code is looked at,
  // so neither can burn the person's code: the page's own post still signs in.
  assert.equal(
    (await raw(`${d.url}/console/login`, 'POST', { ...host, ...FORM }, `code=${c2}`)).status,
    403,
    'no Origin',
  );
  assert.equal(
    (await raw(`${d.url}/console/login`, 'POST', { ...host, ...FORM, origin }, `code=${c2}`))
      .status,
    303,
  );

  for (const path of [
    '/console/',
    '/console/runtimes',
    '/console/activity',
    '/console/approvals',
    '/console/tools',
    '/console/client-tools',
    '/console/context-cost',
    '/console/activity/1',
    '/console/login',
    '/console/assets/console.js',
    '/console/assets/console.css',
    '/console/nope',
  ]) {
    const signedIn = await get(path, cookie);
    assert.match(
      String(signedIn.headers['content-security-policy']),
      /^default-src 'none'; script-src 'self'; style-src 'self';/,
      path,
    );
    assert.equal(signedIn.headers['x-frame-options'], 'DENY', path);
    assert.equal(signedIn.headers['x-content-type-options'], 'nosniff', path);
    assert.doesNotMatch(
      signedIn.body,
      /<script>|<script [^>]*>[^<]|\sstyle=|\son[a-z]+=/i,
      `no inline script or style on ${path}`,
    );
    if (
      !['/console/login', '/console/assets/console.js', '/console/assets/console.css'].includes(
        path,
      )
    ) {
      const anon = await get(path);
      assert.equal(anon.status, 401, path);
      assert.ok(anon.headers['content-security-policy']);
    }
  }
  assert.equal((await get('/console/activity/1', cookie)).status, 404, 'no call 1 yet');
  assert.equal((await get('/console', cookie)).status, 303);
  assert.equal((await get('/console/activity?outcome=bogus', cookie)).status, 200);
  assert.match((await get('/console/activity?outcome=bogus', cookie)).body, /role="alert"/);

  const page = await get('/console/runtimes', cookie);
  const csrf =
    /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? /data-csrf|csrf/.exec(page.body)?.[0];
  // no runtime: the Runtimes page has no form; the Approvals page and logout still need the token
  assert.equal(csrf, undefined);
  const logoutNoCsrf = await raw(
    `${d.url}/console/logout`,
    'POST',
    { ...host, ...FORM, origin, cookie },
    '',
  );
  assert.equal(logoutNoCsrf.status, 403);
  const evil = await raw(
    `${d.url}/console/logout`,
    'POST',
    { ...host, ...FORM, origin: 'http://evil.example', cookie },
    '',
  );
  assert.equal(evil.status, 403);
  assert.equal((await get('/console/', cookie)).status, 200, 'still signed in');

  // Context cost: every surface of every runtime kind has the bytes and tokens `token analyze --json` reports.
  const cost = (await get('/console/context-cost', cookie)).body;
  for (const kind of ['claude', 'codex', 'codex-app-server', 'opencode', 'generic']) {
    const r = await cli(d.home, ['token', 'analyze', '--runtime', kind, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as {
      surfaces: { name: string; bytes: number; tokens: number }[];
    };
    const section =
      new RegExp(`<section data-runtime="${kind}"[^]*?</section>`).exec(cost)?.[0] ?? '';
    assert.ok(section, kind);
    for (const s of report.surfaces) {
      const row = new RegExp(
        `<tr data-surface="${s.name}"><td class="mono">${s.name}</td><td class="num">(\\d+)</td><td class="num">(\\d+)</td>`,
      ).exec(section);
      assert.deepEqual(
        [Number(row?.[1]), Number(row?.[2])],
        [s.bytes, s.tokens],
        `${kind} ${s.name}`,
      );
    }
  }

  for (const b of bodies)
    assert.ok(!b.includes(token), 'the operator token is in no console response');

  // live stream: an SSE response that starts with a fragment of the page
  const live = await new Promise<{ status: number; type: string; first: string }>(
    (resolve, reject) => {
      const req = request(
        `${d.url}/console/live/runtimes`,
        { headers: { ...host, cookie } },
        (res) => {
          let buf = '';
          res.setEncoding('utf8').on('data', (c: string) => {
            buf += c;
            if (buf.includes('event: fragment')) {
              resolve({
                status: res.statusCode ?? 0,
                type: String(res.headers['content-type']),
                first: buf,
              });
              req.destroy();
            }
          });
        },
      );
      req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
      req.end();
    },
  );
  assert.equal(live.status, 200);
  assert.match(live.type, /^text\/event-stream/);
  assert.match(live.first, /data: .*Runtimes/);
});

test('agentteam console --open hands the link to xdg-open, and says so when there is none', {
  skip: process.platform === 'darwin' ? 'uses xdg-open' : false,
}, async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const bin = mkdtempSync(join(tmpdir(), 'agentteam-opener-'));
  t.after(() => rmSync(bin, { recursive: true, force: true }));
  const out = join(bin, 'opened');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${out}\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const r = await cli(d.home, ['console', '--open'], {
    env: { PATH: `${bin}:${process.env.PATH}` },
  });
  assert.equal(r.code, 0, r.stderr);
  for (let i = 0; i < 100 && !existsSync(out); i++) await new Promise((res) => setTimeout(res, 20));
  assert.equal(readFileSync(out, 'utf8').trim(), r.stdout.trim());
  const none = await cli(d.home, ['console', '--open'], { env: { PATH: '/nonexistent' } });
  assert.equal(none.code, 0);
  assert.match(none.stderr, /neither xdg-open nor open is on PATH/);
});
