import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { CHROMIUM_SKIP, findChromium, shot, signedInConsole } from '../../devkit/browser.js';
import { startDaemon } from '../../devkit/daemon.js';
import { closeHttp } from '../../devkit/http.js';
import { post, waitTurn } from '../../devkit/turns.js';
import { waitFor } from '../../devkit/wait.js';
import { scriptBinary } from '../../devkit/script-binary.js';

/**
 * A runtime's own approval decided on the console, in a real headless
 * Chromium against a real daemon whose Codex agent runs the app-server
 * stand-in (test/fixtures/turn-runtime/app-server.mjs, `ask-command`): Codex's
 * command approval appears live on the Approvals page with who asked (agent,
 * runtime, turn, thread), what (the command masked, its directory, its
 * reason), since when and the time left; Approve answers Codex `accept`
 * and the turn goes on; deciding the same request again shows "Already
 * decided". Skipped where no Chromium is installed.
 */
const CHROMIUM = findChromium();
const FIXTURE = fileURLToPath(
  new URL('../../../test/fixtures/turn-runtime/app-server.mjs', import.meta.url),
);
/** A profile header's value: the stand-in puts it in its command line, the inbox masks it. */
const SECRET = 'hdr-native-approval-7Qx2';
test.after(() => closeHttp());

test('console in Chromium: a Codex command approval decided from the Approvals page reaches Codex', {
  skip: CHROMIUM_SKIP,
  timeout: 120_000,
}, async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'agentteam-native-console-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [records, threads, work, home] = ['records', 'threads', 'work', 'agentteam'].map((n) =>
    join(root, n),
  ) as [string, string, string, string];
  for (const dir of [records, threads, work, home]) mkdirSync(dir);
  const codex = join(root, 'codex');
  scriptBinary(codex, FIXTURE);
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        {
          id: 'cx',
          runtime: 'codex-app-server',
          baseUrl: 'http://127.0.0.1:9/v1',
          headers: { 'X-Gateway-Team': SECRET },
          filesystem: { allowedPaths: [work] },
          launch: { binary: codex, args: ['ask-command'] },
        },
      ],
      teams: [],
    }),
  );
  const d = await startDaemon({
    home,
    env: {
      FAKE_RECORD: records,
      FAKE_THREADS: threads,
      CODEX_HOME: join(root, 'user-codex'),
    },
  });
  t.after(() => d.close());
  const { b, page, co } = await signedInConsole(t, CHROMIUM!, d);
  await page.goto(`${co}/console/approvals`);
  await page.locator('html[data-live="open"]').waitFor({ timeout: 10_000 });

  const posted = await post(d, 'dm:cx', 'Print something');
  const turnId = posted.turns[0]!.turnId;
  const card = page.locator('section[data-approval]:has([data-native="command"])');
  await card.waitFor({ timeout: 20_000 });
  const shown = (await card.textContent()) ?? '';
  assert.match(shown, /from agent:cx/);
  assert.match(shown, /codex-app-server command, turn /);
  assert.ok(shown.includes(`turn ${turnId}`), shown);
  assert.match(shown, /thread thr-/);
  assert.ok(!shown.includes('asked by a delegated child'), 'the primary thread asked');
  assert.match(shown, /echo approved-output # \[X-Gateway-Team\]/);
  assert.ok(!shown.includes(SECRET), 'the secret in the command is masked');
  assert.ok(shown.includes(work) && shown.includes('to answer'), shown);
  // The time left is counted down on the page.
  const left = card.locator('time[data-until]');
  let text = '';
  await waitFor(
    async () => {
      text = (await left.textContent()) ?? '';
      return /^\d+ min \d+ s$/.test(text);
    },
    5_000,
    100,
  );
  assert.match(text, /^\d+ min \d+ s$/);
  await shot(page, 'approvals-native');
  const id = (await card.getAttribute('data-approval'))!;
  const csrf = (await card.locator('input[name="csrf"]').getAttribute('value'))!;
  const html = await page.content();
  assert.ok(!html.includes(SECRET), 'nowhere on the page');

  // The press itself must send the form (the page redraws live; the page's URL is already this one).
  const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/decide'), {
    timeout: 10_000,
  });
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await sent;
  await page.waitForURL(`${co}/console/approvals`);
  const turn = await waitTurn(d, turnId);
  assert.equal(turn.state, 'succeeded', JSON.stringify(turn));
  const rec = readdirSync(records)
    .map((f) => JSON.parse(readFileSync(join(records, f), 'utf8')))
    .find((r) => r.approvals);
  assert.deepEqual(rec?.approvals, [{ decision: 'accept' }], 'Codex got accept, once');
  await page.locator(`tr[data-approval="${id}"]`).waitFor({ timeout: 10_000 });

  // A second decision of the same request: the page says so, nothing changes.
  const again = await b.newPage();
  await again.goto(`${co}/console/approvals`);
  // The same form the card had, posted again from a page drawn after the decision.
  await again.evaluate(`(() => {
    const f = document.createElement('form');
    f.method = 'post';
    f.action = '/console/approvals/${id}/decide';
    for (const [k, v] of [['csrf', ${JSON.stringify(csrf)}], ['decision', 'reject']]) {
      const i = document.createElement('input');
      i.name = k;
      i.value = v;
      f.append(i);
    }
    document.body.append(f);
    f.submit();
  })()`);
  await again.waitForSelector('[data-already-decided]');
  assert.equal(await again.textContent('h1'), 'Already decided');
});
