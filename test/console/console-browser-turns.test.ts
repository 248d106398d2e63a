import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { CHROMIUM_SKIP, findChromium, shot, signedInConsole } from '../../devkit/browser.js';
import { closeHttp } from '../../devkit/http.js';
import { post, runtimePid, startTurnDaemon, waitTurn } from '../../devkit/turns.js';
import { alive } from '../../devkit/wait.js';

/**
 * The Turns page in a real headless Chromium against a real daemon whose
 * agents run the fixture runtime: a posted message's turn appears live as
 * running, with its clock; cancelled from the page (after the confirmation)
 * it becomes cancelled and its runtime is gone; a turn's detail lists the
 * tool calls its runtime made. Skipped where no Chromium is installed.
 */
const CHROMIUM = findChromium();
test.after(() => closeHttp());

test('console in Chromium: a turn appears live, is cancelled from the page, and its runtime stops', {
  skip: CHROMIUM_SKIP,
  timeout: 120_000,
}, async (t) => {
  const { d, record } = await startTurnDaemon();
  t.after(() => d.close());
  const { b, page, co } = await signedInConsole(t, CHROMIUM!, d);
  await page.getByRole('link', { name: 'Turns' }).click();
  await page.waitForURL(`${co}/console/turns`);
  await page.locator('html[data-live="open"]').waitFor({ timeout: 10_000 });
  // Marks this document: a reload would lose it, so what follows arrives live.
  await page.evaluate("document.body.setAttribute('data-before', 'yes')");

  const { turns } = await post(d, 'dm:sleeper', 'Take your time');
  const id = turns[0]!.turnId;
  const row = page.locator(`tr[data-turn="${id}"][data-state="running"]`);
  await row.waitFor({ timeout: 10_000 });
  assert.equal(await page.getAttribute('body', 'data-before'), 'yes', 'no reload');
  assert.match((await row.textContent()) ?? '', /sleeper.*dm:sleeper/);
  // The clock runs on the page: a whole number of seconds, then more.
  const clock = row.locator('time[data-since]');
  let shown = '';
  for (const until = Date.now() + 10_000; Date.now() < until; ) {
    shown = (await clock.textContent()) ?? '';
    if (/^[1-9]\d* s$/.test(shown)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(shown, /^[1-9]\d* s$/);
  const pid = await runtimePid(record, id);
  assert.ok(alive(pid), 'the runtime runs');
  await shot(page, 'turns');

  // Cancel asks first; dismissed, nothing happens.
  const asked: string[] = [];
  page.once('dialog', (dlg) => {
    asked.push(dlg.message());
    void dlg.dismiss();
  });
  await row.getByRole('button', { name: 'Cancel the turn of sleeper' }).click();
  assert.match(
    asked[0] ?? '',
    /^Cancel the turn of sleeper on dm:sleeper\? Its runtime is stopped/,
  );
  assert.equal((await waitTurn(d, id, ['running'])).state, 'running');
  page.once('dialog', (dlg) => void dlg.accept());
  await row.getByRole('button', { name: 'Cancel the turn of sleeper' }).click();
  await page.waitForURL(`${co}/console/turns`);
  const ended = page.locator(`tr[data-turn="${id}"][data-state="cancelled"]`);
  await ended.waitFor({ timeout: 10_000 });
  assert.match((await ended.textContent()) ?? '', /cancelled/);
  const turn = await waitTurn(d, id);
  assert.equal(turn.state, 'cancelled');
  for (const until = Date.now() + 10_000; alive(pid) && Date.now() < until; )
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(pid), false, 'the runtime is gone');
  assert.equal(await page.locator(`tr[data-turn="${id}"][data-state="running"]`).count(), 0);

  // A turn that answered: its detail lists the call its runtime made, from the audit trail.
  const answered = (await post(d, 'dm:a1', 'Say hello')).turns[0]!.turnId;
  await page
    .locator(`tr[data-turn="${answered}"][data-state="succeeded"]`)
    .waitFor({ timeout: 20_000 });
  await page.locator(`tr[data-turn="${answered}"] a`).click();
  await page.waitForURL(/\/console\/turn\?server=local&id=/);
  await page.locator('tr[data-tool="message_send"]').waitFor({ timeout: 10_000 });
  assert.match((await page.locator('tr[data-tool="message_send"]').textContent()) ?? '', /ok/);
  await shot(page, 'turn-detail');
  // The call's own detail says which turn it was made in, and leads back there.
  await page.locator('tr[data-tool="message_send"] a').click();
  await page.waitForURL(/\/console\/activity\/\d+$/);
  await page.locator(`p[data-turn="${answered}"] a`).click();
  await page.waitForURL(/\/console\/turn\?server=local&id=/);
  await page.locator('tr[data-tool="message_send"]').waitFor({ timeout: 10_000 });
  assert.deepEqual(b.cspViolations, []);
});
