import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CHROMIUM_SKIP, findChromium, shot, signedInConsole } from '../../devkit/browser.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { call, closeHttp } from '../../devkit/http.js';
import { answerRuntime, post, waitTurn } from '../../devkit/turns.js';

/**
 * The overview leads with what needs the person, in a real headless Chromium
 * against a real daemon whose agents run the fixture runtime: an approval an
 * agent asks for appears there without a reload and is decided there; a
 * failed turn and a turn that ended without a reply appear, linked to the
 * turn; the daemon's details follow below. Skipped where no Chromium is installed.
 */
const CHROMIUM = findChromium();
test.after(() => closeHttp());

test('console in Chromium: the overview shows what needs the person and decides an approval', {
  skip: CHROMIUM_SKIP,
  timeout: 120_000,
}, async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-needs-'));
  const work = join(home, 'work');
  mkdirSync(work);
  const agent = (id: string, extra: string[]) => ({
    id,
    runtime: 'generic',
    filesystem: { allowedPaths: [work] },
    launch: { command: answerRuntime(extra) },
  });
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [agent('a1', []), agent('broken', ['exit', '4']), agent('quiet', ['silent'])],
    }),
  );
  const d = await startDaemon({ home });
  t.after(() => d.close());
  const { page, co } = await signedInConsole(t, CHROMIUM!, d);
  await page.locator('text=Nothing needs you now.').waitFor();
  await page.locator('html[data-live="open"]').waitFor({ timeout: 10_000 });
  await page.evaluate("document.body.setAttribute('data-before', 'yes')");

  // What needs the person comes before the daemon's own details.
  const order = await page.evaluate(
    "[...document.querySelectorAll('main h2')].map((h) => h.textContent)",
  );
  assert.deepEqual((order as string[]).slice(0, 2), ['Needs you', 'Daemon']);

  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const asked = await call(rt, 'approval', 'request', {
    title: 'Merge the release branch',
    detail: 'CI is green',
  });
  assert.equal(asked.status, 200, asked.text);
  const id = asked.json.data.approval.id as string;
  const card = page.locator(`[data-needs-you] section[data-approval="${id}"]`);
  await card.waitFor({ timeout: 10_000 });
  assert.equal(await page.getAttribute('body', 'data-before'), 'yes', 'arrived without a reload');
  assert.match((await card.textContent()) ?? '', /Merge the release branch.*from agent:a1/s);

  const failed = await post(d, 'dm:broken', 'please build');
  const silent = await post(d, 'dm:quiet', 'are you there?');
  const failedId = failed.turns[0]!.turnId;
  const silentId = silent.turns[0]!.turnId;
  assert.equal((await waitTurn(d, failedId)).state, 'failed');
  assert.equal((await waitTurn(d, silentId)).state, 'succeeded');
  const failedRow = page.locator(`table[data-needs="failed"] tr[data-turn="${failedId}"]`);
  await failedRow.waitFor({ timeout: 10_000 });
  assert.match(
    (await failedRow.textContent()) ?? '',
    /broken.*dm:broken.*failed \(runtime_failed\)/,
  );
  const unanswered = page.locator(`table[data-needs="unanswered"] tr[data-turn="${silentId}"]`);
  await unanswered.waitFor({ timeout: 10_000 });
  assert.match((await unanswered.textContent()) ?? '', /quiet.*dm:quiet.*no reply/);
  // The failed turn is unanswered too: its agent's latest turn on dm:broken left the message without a reply.
  await page.locator(`table[data-needs="unanswered"] tr[data-turn="${failedId}"]`).waitFor();
  await shot(page, 'overview-needs-you');

  await card.getByLabel('Reason').fill('ship it');
  // The press itself must send the form: a live redraw landing between press and release would swallow it.
  const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/decide'), {
    timeout: 10_000,
  });
  await card.getByRole('button', { name: 'Approve' }).click();
  await sent;
  await page.waitForURL(`${co}/console/`);
  await card.waitFor({ state: 'detached', timeout: 10_000 });
  const got = (await call(rt, 'approval', 'get', { id })).json.data.approval;
  assert.deepEqual(
    [got.status, got.note, got.decidedBy],
    ['approved', 'ship it', 'human:operator'],
  );

  // A reply answers: the agent's next turn on that target replies, and the message leaves the list.
  await failedRow.getByRole('link', { name: failedId }).click();
  await page.waitForURL(/\/console\/turn\?/);
  assert.match(page.url(), new RegExp(`id=${failedId}`));
  await page.goto(`${co}/console/`);
  const answered = await post(d, 'dm:a1', 'hello');
  assert.equal((await waitTurn(d, answered.turns[0]!.turnId)).state, 'succeeded');
  await page.reload();
  assert.equal(
    await page.locator(`tr[data-turn="${answered.turns[0]!.turnId}"]`).count(),
    0,
    'a replied turn needs nobody',
  );
});
