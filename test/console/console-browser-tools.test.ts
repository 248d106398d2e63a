import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { rawRequest, closeHttp } from '../../devkit/http.js';
import {
  findChromium,
  launchBrowser,
  CHROMIUM_SKIP,
  shot,
  signInUrl,
} from '../../devkit/browser.js';
import { prepareHome } from '../../devkit/tools.js';
import { connectAgent, connectApp, echoTool } from '../../devkit/client-tools.js';

const SKIP = CHROMIUM_SKIP;
/**
 * The console's tools page in a real headless Chromium against a real daemon:
 * declared tools with a problem, a question answered from the page, client
 * tools appearing live. Skipped where no Chromium is installed.
 */
const CHROMIUM = findChromium();
test.after(() => closeHttp());

const _raw = (url: string, method: string, headers: Record<string, string>, body = '') =>
  rawRequest(url, method, headers, body);

const text = (r: unknown) =>
  ((r as { content: { type: string; text: string }[] }).content ?? []).map((c) => c.text).join('');

test('console in Chromium: declared tools with a problem (file and pointer), a question answered from the page, client tools live', {
  skip: SKIP,
  timeout: 120_000,
}, async (t) => {
  const h = await prepareHome(t, {
    examples: true,
    tools: {
      'broken.json': {
        name: 'broken',
        description: 'x',
        transport: { type: 'command', argv: ['/nonexistent/prog'] },
      },
    },
  });
  const b = await launchBrowser(t, CHROMIUM!);
  const page = await b.newPage();
  const link = await signInUrl(h);
  const co = new URL(link).origin;
  await page.goto(link);
  await page.waitForURL(`${co}/console/`);
  await page.goto(`${co}/console/tools`);
  const problem = page.locator('tr[data-problem]', { hasText: 'broken.json' });
  await problem.waitFor();
  assert.match(
    (await problem.textContent()) ?? '',
    /broken\.json\/needsa command tool needs "needs"/,
  );
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());
  const asked = await agent.client.callTool({
    name: 'name_branch',
    arguments: { topic: 'Console' },
  });
  assert.match(text(asked), /^Asked the person/);
  const card = page.locator('section[data-ask]');
  await card.waitFor({ timeout: 5_000 });
  await card.getByLabel('Answer').fill('feat/console');
  await shot(page, 'declared-tools');
  await card.getByRole('button', { name: 'Send answer' }).click();
  await page.waitForURL(`${co}/console/tools`);
  await page.locator('section[data-ask]').waitFor({ state: 'detached', timeout: 5_000 });
  const again = await agent.client.callTool({
    name: 'name_branch',
    arguments: { topic: 'Console' },
  });
  assert.equal(text(again), 'Use the branch name: feat/console');
  await page
    .locator('td pre', { hasText: 'Branch name agreed: feat/console' })
    .waitFor({ timeout: 5_000 });

  // Client tools: an app connects and lends a tool while the page is open; the counts are daemon status's.
  await page.goto(`${co}/console/client-tools`);
  const app = await connectApp(h as never);
  t.after(() => app.close());
  assert.equal((await app.register('editor', [echoTool('editor_echo')])).status, 200);
  await page.locator('tr[data-tool="editor_echo"]').waitFor({ timeout: 5_000 });
  const status = JSON.parse((await h.cli(['daemon', 'status'])).stdout).data.clientTools;
  for (const [label, key] of [
    ['Connected apps', 'clients'],
    ['Groups', 'groups'],
    ['Tools', 'tools'],
  ] as const) {
    await page
      .locator(`[data-stat="${label}"] b`, { hasText: String(status[key]) })
      .waitFor({ timeout: 5_000 });
  }
  assert.equal(status.tools, 1);
  // Each connected app is a row: as many as daemon status counts, the app's own with its group.
  assert.equal(await page.locator('tr[data-client]').count(), status.clients);
  await page.locator('tr[data-client]', { hasText: 'editor' }).waitFor({ timeout: 5_000 });
  await shot(page, 'client-tools');
  assert.deepEqual(b.cspViolations, []);
});
