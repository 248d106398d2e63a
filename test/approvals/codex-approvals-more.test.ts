import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import type { SpawnedDaemon } from '../../devkit/daemon.js';
import { signIn } from '../../devkit/console.js';
import { post, waitTurn } from '../../devkit/turns.js';
import { waitFor } from '../../devkit/wait.js';
import { askingDaemon, type Approval, type AskingDaemon } from '../../devkit/native-approvals.js';

/**
 * More of Codex's own approvals in delivered turns (the stand-in of
 * codex-approvals.test.ts): a file change and its diff, a delegated child
 * thread's request, and a daemon that dies while a request waits.
 */

let h: AskingDaemon;
let d: SpawnedDaemon;

before(async () => {
  h = await askingDaemon({ cxf: ['ask-file'], cxk: ['ask-command'] });
  d = h.d;
});
after(async () => {
  await h?.close();
});

const listed = (agent: string, status?: string) => h.listed(agent, status);
const waitPending = (agent: string) => h.waitPending(agent);
const reply = (target: string) => h.reply(target);

test("a file change shows its diff; a delegated child thread's request says so on the CLI and the console", async () => {
  const { turns } = await post(d, 'dm:cxf', 'Update the notes.');
  const turnId = turns[0]!.turnId;
  const { row: file } = await waitPending('cxf');
  assert.equal(file.native.kind, 'file_change');
  assert.equal(file.native.delegated, false);
  assert.equal(file.native.view.diff.text, 'update notes.md\n@@ -1 +1 @@\n-old line\n+new line');
  assert.equal(file.native.view.reason.text, 'update the notes');
  assert.equal((await d.cli(['approval', 'decide', file.id, 'approve'])).code, 0);
  let child: Approval | undefined;
  await waitFor(
    async () => {
      child = (await listed('cxf', 'pending')).rows.find((a) => a.id !== file.id);
      return child !== undefined;
    },
    20_000,
    100,
  );
  assert.ok(child, 'the child thread asked');
  assert.deepEqual(
    [child.native.delegated, child.native.threadId, child.native.kind, child.native.turnId],
    [true, `${file.native.threadId}-child`, 'command', turnId],
  );
  assert.match(child.title, /^codex-app-server \(delegated\) asks to run: rm -rf build$/);
  const page = await (await signIn(d)).get('/console/approvals');
  const card = page.body.slice(page.body.indexOf(`data-approval="${child.id}"`));
  assert.match(card.slice(0, 2000), /asked by a delegated child/);
  assert.equal((await d.cli(['approval', 'decide', child.id, 'reject'])).code, 0);
  const t = await waitTurn(d, turnId);
  assert.equal(t.state, 'succeeded');
  assert.equal(await reply('dm:cxf'), 'file: accept; child: decline');
});

// Last: it restarts the daemon.
test('the daemon dies (kill -9) while a request waits: the next daemon interrupts the turn and cancels the request', async () => {
  const { turns } = await post(d, 'dm:cxk', 'Still there?');
  const turnId = turns[0]!.turnId;
  const { row } = await waitPending('cxk');
  d.kill9();
  await d.start();
  const t = await waitTurn(d, turnId);
  assert.equal(t.state, 'interrupted');
  let ended: Approval | undefined;
  await waitFor(
    async () => {
      ended = (await listed('cxk')).rows[0];
      return ended?.status !== 'pending';
    },
    10_000,
    100,
  );
  assert.equal(ended!.id, row.id);
  assert.deepEqual(
    [ended!.status, ended!.decidedBy, ended!.note],
    ['cancelled', 'daemon', 'the turn ended'],
  );
});
