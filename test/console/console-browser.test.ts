import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { rawRequest, call, closeHttp, post } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import {
  findChromium,
  launchBrowser,
  CHROMIUM_SKIP,
  shot,
  signInUrl,
} from '../../devkit/browser.js';
import { readOperatorToken } from '../../cli/daemon-client.js';

const SKIP = CHROMIUM_SKIP;

/**
 * The operator console in a real headless Chromium against a real daemon:
 * sign-in with a one-time code, live Runtimes/Activity/Approvals, and the
 * security properties (cookie, CSRF, Origin, CSP, the operator token never
 * reaching the browser). Skipped where no Chromium is installed.
 */
const CHROMIUM = findChromium();
test.after(() => closeHttp());

const raw = (url: string, method: string, headers: Record<string, string>, body = '') =>
  rawRequest(url, method, headers, body);

test('console in Chromium: one-time sign-in, live runtimes, activity and approvals, and its security properties', {
  skip: SKIP,
  timeout: 180_000,
}, async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const operatorToken = readOperatorToken(d.home);
  const b = await launchBrowser(t, CHROMIUM!);
  const page = await b.newPage();
  const seen: { url: string; csp: string | null; body: string | null; type: string }[] = [];
  b.context.on('response', async (res) => {
    const type = res.headers()['content-type'] ?? '';
    const body = type.includes('event-stream') ? null : await res.text().catch(() => null);
    seen.push({
      url: res.url(),
      csp: res.headers()['content-security-policy'] ?? null,
      body,
      type,
    });
  });
  page.on('dialog', (dlg) => void dlg.accept());
  let cookie = '';
  // The console's own origin (`http://<name>.localhost:PORT`), from the sign-in link; raw requests reach it at d.url under its Host.
  let co = '';

  await t.test(
    'signs in with the one-time code; the cookie is HttpOnly, SameSite=Strict, path /console',
    async () => {
      const url = await signInUrl(d);
      co = new URL(url).origin;
      await page.goto(url);
      await page.waitForURL(`${co}/console/`);
      assert.equal(await page.textContent('h1'), 'Overview');
      const cookies = await b.context.cookies(`${co}/console/`);
      assert.equal(cookies.length, 1);
      const c = cookies[0]!;
      assert.deepEqual([c.httpOnly, c.sameSite, c.path], [true, 'Strict', '/console']);
      assert.ok(c.expires > Date.now() / 1000 + 3600, 'the session has its own expiry');
      cookie = `${c.name}=${c.value}`;
      // a second use of the same code is refused
      const again = await b.newPage();
      const res = await again.goto(url);
      assert.equal(res?.status(), 200);
      await again.waitForSelector('text=Sign-in refused');
      await again.close();
    },
  );

  await t.test(
    'a runtime started by the test appears on Runtimes and disappears when revoked from the page',
    async () => {
      await page.goto(`${co}/console/runtimes`);
      const rt = await startRuntime(d, { server: 's1', agent: 'console-agent' });
      t.after(() => rt.close());
      const row = page.locator('tr', { hasText: 'console-agent' });
      await row.waitFor({ timeout: 5_000 });
      assert.match((await row.textContent()) ?? '', /s1.*console-agent.*generic/);
      await shot(page, 'runtimes');
      const token = rt.token();
      await row.getByRole('button', { name: /Revoke/ }).click();
      await row.waitFor({ state: 'detached', timeout: 5_000 });
      const after = await raw(`${d.url}/api/v1/runtimes`, 'GET', {
        authorization: `Bearer ${operatorToken}`,
      });
      assert.deepEqual(
        JSON.parse(after.body).data.runtimes.filter(
          (r: { agentId: string }) => r.agentId === 'console-agent',
        ),
        [],
      );
      const refused = await post(`${rt.base}/task/list`, token, '{}');
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.json.error.code, 'forbidden', 'the revoked runtime has lost access');
    },
  );

  await t.test(
    'a call made by the test appears on Activity within 1 s without reload',
    async () => {
      const rt = await startRuntime(d, { server: 's1', agent: 'worker' });
      t.after(() => rt.close());
      await page.goto(`${co}/console/activity`);
      await page.locator('html[data-live="open"]').waitFor({ state: 'attached' });
      const loads: number[] = [];
      page.on('load', () => loads.push(Date.now()));
      const t0 = Date.now();
      const r = await call(rt, 'task', 'create', { title: 'seen live' });
      assert.equal(r.status, 200, r.text);
      await page
        .locator('tr', { hasText: 'worker' })
        .filter({ hasText: 'task/create' })
        .first()
        .waitFor({ timeout: 1_000 });
      const ms = Date.now() - t0;
      assert.ok(ms < 1_000, `appeared after ${ms} ms`);
      assert.deepEqual(loads, [], 'no reload');
      await shot(page, 'activity');
      await page.locator('tr', { hasText: 'worker' }).first().getByRole('link').click();
      await page.waitForSelector('h1:has-text("task/create")');
      assert.match((await page.textContent('dl.detail')) ?? '', /Trace id/);
    },
  );

  await t.test(
    "an agent's approval request decided from the page; the agent sees the decision",
    async () => {
      const rt = await startRuntime(d, { server: 'local', agent: 'asker' });
      t.after(() => rt.close());
      await page.goto(`${co}/console/approvals`);
      const asked = await call(rt, 'approval', 'request', {
        title: 'Deploy to production',
        detail: 'Release 1.2',
      });
      assert.equal(asked.status, 200, asked.text);
      const id = asked.json.data.approval.id as string;
      const card = page.locator(`section[data-approval="${id}"]`);
      await card.waitFor({ timeout: 5_000 });
      await card.getByLabel('Reason').fill('Go ahead after 5pm');
      await shot(page, 'approvals');
      await card.getByRole('button', { name: 'Approve' }).click();
      await page
        .locator(`tr[data-approval="${id}"]`)
        .waitFor({ timeout: 5_000 })
        .catch(async (err) => assert.fail(`${err}\n${await page.content()}`));
      const got = (await call(rt, 'approval', 'get', { id })).json.data.approval;
      assert.deepEqual(
        [got.status, got.note, got.decidedBy],
        ['approved', 'Go ahead after 5pm', 'human:operator'],
      );
    },
  );

  await t.test(
    'a request on another server stays on the page after its agent is gone',
    async () => {
      const rt = await startRuntime(d, { server: 'far', agent: 'leaver' });
      const asked = await call(rt, 'approval', 'request', { title: 'Rotate the keys' });
      assert.equal(asked.status, 200, asked.text);
      const id = asked.json.data.approval.id as string;
      await rt.close();
      await page.goto(`${co}/console/approvals`);
      await page
        .locator(`section[data-approval="${id}"]`, { hasText: 'Rotate the keys' })
        .waitFor({ timeout: 5_000 });
    },
  );

  await t.test('overview shows the same numbers as the CLI', async () => {
    await page.goto(`${co}/console/`);
    const summary = JSON.parse(
      (
        await raw(`${d.url}/api/v1/audit/summary?since=1h`, 'GET', {
          authorization: `Bearer ${operatorToken}`,
        })
      ).body,
    ).data;
    const calls = summary.byTool.reduce((n: number, r: { calls: number }) => n + r.calls, 0);
    assert.equal(
      await page.locator('[data-stat="Calls, last hour"] b').textContent(),
      String(calls),
    );
    assert.ok(calls >= 2, `calls ${calls}`);
    await shot(page, 'overview');
    await page.goto(`${co}/console/context-cost`);
    await page.locator('section[data-runtime="claude"] tr[data-surface="mcp_inventory"]').waitFor();
    await shot(page, 'context-cost');
  });

  await t.test(
    'readable in a narrow window, light and dark after the system setting, usable by keyboard',
    async () => {
      const narrow = await b.newPage();
      await narrow.setViewportSize({ width: 400, height: 800 });
      for (const path of [
        '',
        'runtimes',
        'activity',
        'approvals',
        'client-tools',
        'tools',
        'context-cost',
      ]) {
        await narrow.goto(`${co}/console/${path}`);
        const overflow = Number(
          await narrow.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
        );
        assert.ok(overflow <= 0, `/console/${path} is ${overflow}px wider than a 400px window`);
      }
      await narrow.emulateMedia({ colorScheme: 'dark' });
      assert.equal(
        await narrow.evaluate('getComputedStyle(document.body).backgroundColor'),
        'rgb(13, 17, 23)',
      );
      await narrow.emulateMedia({ colorScheme: 'light' });
      assert.equal(
        await narrow.evaluate('getComputedStyle(document.body).backgroundColor'),
        'rgb(255, 255, 255)',
      );
      await narrow.goto(`${co}/console/`);
      await narrow.keyboard.press('Tab');
      assert.equal(await narrow.evaluate('document.activeElement.textContent'), 'Overview');
      await narrow.keyboard.press('Tab');
      assert.equal(await narrow.evaluate('document.activeElement.textContent'), 'Runtimes');
      await narrow.keyboard.press('Enter');
      await narrow.waitForURL(`${co}/console/runtimes`);
      assert.equal(
        await narrow.getAttribute('nav a[aria-current="page"]', 'href'),
        '/console/runtimes',
      );
      await narrow.close();
    },
  );

  await t.test(
    'CSP on every page, no CSP violation, the operator token in no body, URL or cookie',
    async () => {
      const docs = seen.filter((s) => new URL(s.url).pathname.startsWith('/console'));
      assert.ok(docs.length >= 8);
      for (const s of docs) assert.match(s.csp ?? '', /script-src 'self'/, s.url);
      for (const s of docs) assert.doesNotMatch(s.csp ?? '', /unsafe-inline|unsafe-eval/);
      assert.deepEqual(b.cspViolations, []);
      for (const s of seen) {
        assert.ok(!s.url.includes(operatorToken), s.url);
        assert.ok(!(s.body ?? '').includes(operatorToken), s.url);
      }
      for (const c of await b.context.cookies()) assert.ok(!c.value.includes(operatorToken));
      const frame = await raw(`${d.url}/console/`, 'GET', { host: new URL(co).host, cookie });
      assert.equal(frame.headers['x-frame-options'], 'DENY');
    },
  );
});
