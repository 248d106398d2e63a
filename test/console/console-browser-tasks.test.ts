import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { CHROMIUM_SKIP, findChromium, shot, signedInConsole } from '../../devkit/browser.js';
import { closeHttp } from '../../devkit/http.js';
import { startTurnDaemon, waitTurn } from '../../devkit/turns.js';

/**
 * The Tasks pages in a real headless Chromium against a real daemon whose
 * agents run the fixture runtime: a person creates a project and a task,
 * assigns the task to an agent from its page, and the agent's turn starts on
 * the task's thread; the Tasks list shows the turn's state arrive live, the
 * task's page shows the assignment and the agent's answer. A stale form is
 * refused with the catalog's code. Skipped where no Chromium is installed.
 */
const CHROMIUM = findChromium();
test.after(() => closeHttp());

test('console in Chromium: a person creates a task, assigns it to an agent, and its turn starts', {
  skip: CHROMIUM_SKIP,
  timeout: 120_000,
}, async (t) => {
  const { d } = await startTurnDaemon();
  t.after(() => d.close());
  const { b, page, co } = await signedInConsole(t, CHROMIUM!, d);
  await page.getByRole('link', { name: 'Tasks' }).click();
  await page.waitForURL(`${co}/console/tasks`);
  await page.getByRole('link', { name: 'New task or project' }).click();

  await page.getByLabel('Name').fill('Relaunch');
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(`${co}/console/tasks?server=local`);
  await page.locator('tr[data-project]', { hasText: 'Relaunch' }).waitFor();

  await page.getByRole('link', { name: 'New task or project' }).click();
  await page.getByLabel('Title').fill('Fix the login bug');
  await page.getByLabel('Description').first().fill('A blank page after signing in.');
  await page.getByLabel('Project').selectOption({ label: 'Relaunch' });
  await page.getByRole('button', { name: 'Create task' }).click();
  await page.waitForURL(/\/console\/task\?server=local&id=task_/);
  const id = new URL(page.url()).searchParams.get('id')!;
  assert.match(
    (await page.locator('dl[data-task]').textContent()) ?? '',
    /todo.*—.*Relaunch/s,
    'unassigned, in its project',
  );
  await shot(page, 'task-new');

  // Assign from the task's page: the agent's turn starts on the task's thread.
  await page.getByLabel('Assign to').fill('a1');
  await page.getByRole('button', { name: 'Assign' }).click();
  await page.waitForURL(new RegExp(`/console/task\\?server=local&id=${id}$`));
  assert.equal(await page.getAttribute('dd[data-assignee]', 'data-assignee'), 'a1');
  const started = page.locator('li[data-turn]');
  await started.first().waitFor();
  const turnId = (await started.first().getAttribute('data-turn'))!;
  const turn = await waitTurn(d, turnId);
  assert.equal(turn.state, 'succeeded');
  assert.equal(turn.agentId, 'a1');
  assert.equal(turn.target, `task:${id}`);

  // The Tasks list (live) shows the turn's outcome; the task's page shows the assignment and the answer.
  await page.getByRole('link', { name: 'All tasks' }).click();
  await page.locator('html[data-live="open"]').waitFor({ timeout: 10_000 });
  await page
    .locator(`tr[data-task="${id}"] td[data-turn-state="succeeded"]`)
    .waitFor({ timeout: 10_000 });
  assert.match((await page.locator(`tr[data-task="${id}"]`).textContent()) ?? '', /a1/);
  await shot(page, 'tasks');
  await page.locator(`tr[data-task="${id}"] a`).first().click();
  await page.locator('div[data-author="agent:a1"]').waitFor({ timeout: 10_000 });
  const assignment = page.locator('div[data-author="human:operator"]');
  assert.match((await assignment.textContent()) ?? '', /assigned you the task.*Fix the login bug/s);

  // A second tab changes the state; the first tab's form is now stale and is refused, not applied.
  const other = await b.newPage();
  await other.goto(page.url());
  await other.getByLabel('State').selectOption('in_progress');
  await other.getByRole('button', { name: 'Set state' }).click();
  await other.waitForURL(new RegExp(`id=${id}$`));
  await page.getByLabel('State').selectOption('done');
  await page.getByRole('button', { name: 'Set state' }).click();
  assert.match((await page.getByRole('alert').textContent()) ?? '', /^revision_conflict/);
  const res = await d.cli(['task', 'get', id]);
  assert.equal(JSON.parse(res.stdout).data.task.status, 'in_progress');
  assert.deepEqual(b.cspViolations, []);
});
