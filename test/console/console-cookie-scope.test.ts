import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rawRequest, closeHttp } from '../../devkit/http.js';
import { startDaemon } from '../../devkit/daemon.js';
import { findChromium, launchBrowser, CHROMIUM_SKIP, signInUrl } from '../../devkit/browser.js';

/**
 * Browsers scope cookies by host, not by port: a cookie set by a console on
 * 127.0.0.1:PORT goes to every server on 127.0.0.1. Here a second loopback
 * server, reached under the names a page could use for it, records every
 * Cookie header Chromium sends it; replayed against the console, none may
 * open it. Nor may the console's own cookie, sent without the console's name.
 */
const CHROMIUM = findChromium();
test.after(() => closeHttp());

test('console in Chromium: the session cookie never reaches another loopback server, and replayed it opens nothing', {
  skip: CHROMIUM_SKIP,
  timeout: 120_000,
}, async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const seen: { host: string; path: string; cookie: string }[] = [];
  const other = createServer((req: IncomingMessage, res) => {
    seen.push({
      host: req.headers.host ?? '',
      path: req.url ?? '',
      cookie: req.headers.cookie ?? '',
    });
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>other</title><p>another server</p>');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        other.close(() => r());
        other.closeAllConnections(); // Chromium keeps its connections open; close() alone would wait for them
      }),
  );
  const otherPort = (other.address() as AddressInfo).port;

  const b = await launchBrowser(t, CHROMIUM!);
  const page = await b.newPage();
  const link = await signInUrl(d);
  const consoleOrigin = new URL(link).origin;
  await page.goto(link);
  await page.waitForURL(`${consoleOrigin}/console/`);
  assert.equal(await page.textContent('h1'), 'Overview');
  await page.goto(`${consoleOrigin}/console/approvals`);
  assert.equal(await page.textContent('h1'), 'Approvals');

  // Every name a page elsewhere could give the other server, on the paths the cookie is scoped to and at the root.
  for (const name of ['127.0.0.1', 'localhost', 'console.localhost', 'agentteam.localhost']) {
    for (const path of ['/', '/console/', '/console/approvals']) {
      const res = await page.goto(`http://${name}:${otherPort}${path}`);
      assert.equal(res?.status(), 200, `${name}${path}`);
    }
  }
  assert.equal(seen.filter((x) => x.path !== '/favicon.ico').length, 12, JSON.stringify(seen));

  // Whatever the other server was sent, replayed against the console under each name the daemon answers to, opens nothing.
  const daemonPort = new URL(d.url).port;
  const hosts = [`127.0.0.1:${daemonPort}`, `localhost:${daemonPort}`, new URL(consoleOrigin).host];
  for (const s of seen.filter((x) => x.cookie !== '')) {
    for (const host of hosts) {
      const r = await rawRequest(`${d.url}/console/approvals`, 'GET', { host, cookie: s.cookie });
      assert.notEqual(
        r.status,
        200,
        `the cookie sent to ${s.host}${s.path} opened the console under ${host}`,
      );
      assert.doesNotMatch(r.body, /name="csrf"/);
    }
  }
  // The console's own session cookie, sent under any name but the console's, is refused too.
  const own = (await b.context.cookies(`${consoleOrigin}/console/`))
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
  assert.ok(own, 'signed in');
  for (const host of hosts.slice(0, 2)) {
    const r = await rawRequest(`${d.url}/console/approvals`, 'GET', { host, cookie: own });
    assert.notEqual(r.status, 200, `the session cookie opened the console under ${host}`);
  }
  assert.equal(
    (await rawRequest(`${d.url}/console/approvals`, 'GET', { host: hosts[2]!, cookie: own }))
      .status,
    200,
    'under its own name it works',
  );
});
