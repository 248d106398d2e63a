import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { startDaemon } from '../../devkit/daemon.js';
import {
  findChromium,
  launchBrowser,
  CHROMIUM_SKIP,
  shot,
  signInUrl,
} from '../../devkit/browser.js';
import Database from 'better-sqlite3';

const SKIP = CHROMIUM_SKIP;
const SHOTS = process.env.AGENTTEAM_SCREENSHOTS;

/**
 * The operator console in a real headless Chromium at scale: the first
 * render of every page with 10,000 audit rows in the store, and the
 * overview's counts and the activity pages over them. Skipped where no
 * Chromium is installed.
 */
const CHROMIUM = findChromium();

test('console in Chromium: first render of every page with 10,000 audit rows in the store', {
  skip: SKIP,
  timeout: 180_000,
}, async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  await d.stop();
  const db = new Database(join(d.home, 'store.db'));
  const now = Date.now();
  const insert =
    db.prepare(`INSERT INTO audit (at, server_id, agent_id, authorization_id, generation_id, runtime, thread_id, via, transport, tool, outcome, duration_us, request_bytes, result_bytes, trace_id, args, result)
    VALUES (?, 's1', ?, 'auth0', 'gen0', 'generic', NULL, 'exec', 'exec', ?, ?, ?, 20, 200, NULL, NULL, NULL)`);
  const tools = ['task/create', 'task/list', 'message/post', 'approval/request', 'kb/search'];
  db.transaction(() => {
    for (let i = 0; i < 10_000; i++)
      insert.run(
        now - 3_000_000 + i * 300,
        `agent-${i % 7}`,
        tools[i % tools.length],
        i % 20 === 0 ? 'not_found' : 'ok',
        1000 + ((i * 7919) % 50_000),
      );
  })();
  db.close();
  await d.start();
  const b = await launchBrowser(t, CHROMIUM!);
  const page = await b.newPage();
  const link = await signInUrl(d);
  const co = new URL(link).origin;
  await page.goto(link);
  await page.waitForURL(`${co}/console/`);
  const results: Record<string, number> = {};
  for (const path of ['', 'runtimes', 'activity', 'approvals', 'tools']) {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      await page.goto(`${co}/console/${path}`);
      const fcp = Number(
        await page.evaluate(
          `new Promise((r) => { const f = () => { const e = performance.getEntriesByName('first-contentful-paint')[0]; e ? r(e.startTime) : setTimeout(f, 10); }; f(); })`,
        ),
      );
      runs.push(fcp);
    }
    runs.sort((x, y) => x - y);
    results[path || 'overview'] = Math.round(runs[1]!);
  }
  t.diagnostic(
    `first contentful paint, median of 3, ms: ${JSON.stringify(results)} (load ${(await import('node:os')).loadavg()[0]!.toFixed(2)})`,
  );
  // The overview counts all 10,000 from the audit summary, as `agentteam audit --summary --since 1h` does.
  await page.goto(`${co}/console/`);
  assert.equal(await page.locator('[data-stat="Calls, last hour"] b').textContent(), '10000');
  assert.equal(await page.locator('[data-stat="Error rate, last hour"] b').textContent(), '5.0 %');
  await page.goto(`${co}/console/activity?agent=agent-3`);
  assert.equal(await page.locator('tbody tr').count(), 50);
  await page.getByRole('link', { name: /Older calls/ }).click();
  assert.equal(await page.locator('tbody tr').count(), 50);
  assert.equal(new Set(await page.locator('tbody tr td:nth-child(2)').allTextContents()).size, 1);
  if (SHOTS) {
    for (const path of ['', 'activity']) {
      await page.goto(`${co}/console/${path}`);
      await shot(page, `${path || 'overview'}-10k`);
    }
  }
  // 200 ms is the target on a quiet machine; the assertion leaves room for a loaded CI host.
  for (const [p, ms] of Object.entries(results))
    assert.ok(ms < 1_000, `${p}: first render ${ms} ms`);
});
