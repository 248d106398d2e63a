import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { CHROMIUM_SKIP, findChromium, shot, signedInConsole } from '../../devkit/browser.js';
import { startConversationDaemon } from '../../devkit/conversations.js';
import { closeHttp } from '../../devkit/http.js';

/**
 * A conversation in a real headless Chromium against a real daemon whose
 * agents run the fixture runtime: a person signs in, opens the DM with an
 * agent from the Conversations list, completes an @mention by keyboard,
 * writes, and sees, with no reload, their message's turn queued (behind the
 * agent's turn already running there), then running, then the reply with
 * its audit rows; meanwhile another conversation's unread count moves.
 * Skipped where no Chromium is installed.
 */
const CHROMIUM = findChromium();
test.after(() => closeHttp());

test('console in Chromium: write in a DM, see the turn queued, running, then the reply, live', {
  skip: CHROMIUM_SKIP,
  timeout: 120_000,
}, async (t) => {
  const { d, gate } = await startConversationDaemon();
  t.after(() => d.close());
  // Someone else's message holds gated's runtime busy on the DM until the gate opens.
  const held = await d.cli([
    'message',
    'post',
    '--target',
    'dm:gated',
    '--as',
    'human:bob',
    'first',
  ]);
  assert.equal(held.code, 0, held.stderr);

  const { b, page, co } = await signedInConsole(t, CHROMIUM!, d);
  await page.getByRole('link', { name: 'Conversations', exact: true }).click();
  await page.waitForURL(`${co}/console/conversations`);
  await page.locator('tr[data-target="dm:gated"] a').click();
  await page.waitForURL(/\/console\/conversation\?server=local&target=dm%3Agated$/);
  await page.locator('html[data-live="open"]').waitFor({ timeout: 10_000 });
  // Marks this document: a reload would lose it, so what follows arrives live.
  await page.evaluate("document.body.setAttribute('data-before', 'yes')");

  // @ lists the profile's agents and team; typing narrows; the keyboard takes a name.
  const text = page.getByLabel('Write as human:ada');
  await text.focus();
  await page.keyboard.type('Hello @');
  const options = page.locator('#mention-list [role=option]');
  await options.first().waitFor();
  assert.deepEqual(
    await options.evaluateAll((els) => els.map((e) => e.getAttribute('data-name'))),
    ['a1', 'gated', 'crew'],
  );
  assert.equal(await text.getAttribute('aria-activedescendant'), 'mention-0');
  await page.keyboard.type('g');
  assert.deepEqual(
    await options.evaluateAll((els) => els.map((e) => e.getAttribute('data-name'))),
    ['gated'],
  );
  await page.keyboard.press('Enter');
  assert.equal(await text.inputValue(), 'Hello @gated ');
  assert.equal(await page.locator('#mention-list').isHidden(), true);
  await page.keyboard.type('are you <b>there</b>?');
  await page.keyboard.press('Control+Enter');

  // The message appears as ada's, its turn queued behind the running one.
  const mine = page.locator('li.msg.mine', { hasText: 'Hello @gated are you <b>there</b>?' });
  await mine.waitFor({ timeout: 10_000 });
  assert.equal(await text.inputValue(), '', 'the composer is emptied once sent');
  const turn = mine.locator('li[data-agent="gated"]');
  await mine.locator('li[data-agent="gated"][data-state="queued"]').waitFor({ timeout: 10_000 });
  assert.match((await turn.textContent()) ?? '', /queued, waiting/);
  await shot(page, 'conversation-queued');

  // Another conversation's unread count moves on the side, live.
  const side = page.locator('aside li[data-target="channel:general"]');
  assert.equal(await side.count(), 0);
  const other = await d.cli([
    'message',
    'post',
    '--target',
    'channel:general',
    '--as',
    'human:bob',
    'news',
  ]);
  assert.equal(other.code, 0);
  await side.locator('[data-unread="1"]').waitFor({ timeout: 10_000 });
  await d.cli(['message', 'post', '--target', 'channel:general', '--as', 'human:bob', 'more']);
  await side.locator('[data-unread="2"]').waitFor({ timeout: 10_000 });

  // Open the gate: the first turn answers, then ada's runs (its clock on the page), then its reply arrives.
  writeFileSync(gate, '');
  await mine.locator('li[data-agent="gated"][data-state="running"]').waitFor({ timeout: 15_000 });
  assert.match((await turn.textContent()) ?? '', /running \d+ s/);
  await mine.locator('li[data-agent="gated"][data-state="succeeded"]').waitFor({ timeout: 20_000 });
  const msgId = await mine.getAttribute('data-message');
  const reply = page.locator('li.msg[data-author="agent:gated"]', {
    hasText: `answer to ${msgId}`,
  });
  await reply.waitFor({ timeout: 10_000 });
  assert.equal(await page.getAttribute('body', 'data-before'), 'yes', 'no reload');

  // The tool calls fold under the turn; the reply leads to its audit rows.
  await turn.locator('summary').click();
  await turn.locator('li[data-tool="message_send"] a').waitFor();
  await reply.locator('summary').click();
  await reply.locator('li[data-tool="message_send"] a').click();
  await page.waitForURL(/\/console\/activity\/\d+$/);
  assert.deepEqual(b.cspViolations, []);
});
