import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import type { SpawnedDaemon } from '../../devkit/daemon.js';
import { signIn } from '../../devkit/console.js';
import { watchEvents } from '../../devkit/tools.js';
import { post, waitTurn } from '../../devkit/turns.js';
import { waitFor } from '../../devkit/wait.js';
import { askingDaemon, LABEL, SECRET, type AskingDaemon } from '../../devkit/native-approvals.js';

/**
 * Codex's own approvals in delivered turns, through the public surface: a
 * real daemon runs the agent's `codex app-server` (the JSON-RPC stand-in
 * test/fixtures/turn-runtime/app-server.mjs with `ask-command`: it asks to
 * run a shell command that carries the profile's header value, runs it if
 * approved and replies with the output or the decline). A person sees the
 * request in `agentteam approval list`, on the console and in the event
 * stream, masked, and decides with `agentteam approval decide`.
 */

let h: AskingDaemon;
let d: SpawnedDaemon;
let events: Awaited<ReturnType<typeof watchEvents>>;

before(async () => {
  h = await askingDaemon({
    cxa: ['ask-command'],
    cxd: ['ask-command'],
    cxc: ['ask-command'],
    cxt: ['ask-command', { deadlineSeconds: 2 }],
    cxp: ['ask-command', { allowCommands: ['echo approved-output *'] }],
  });
  d = h.d;
  events = await watchEvents({ home: d.home, url: d.url } as never, [
    'approval.requested',
    'approval.decided',
  ]);
});
after(async () => {
  events?.close();
  await h?.close();
});

const listed = (agent: string, status?: string) => h.listed(agent, status);
const waitPending = (agent: string) => h.waitPending(agent);
const reply = (target: string) => h.reply(target);

test('approve for the rest of the turn: the command runs, its output reaches the model, a second command is not asked', async () => {
  const { turns } = await post(d, 'dm:cxa', 'What is in the build?');
  const turnId = turns[0]!.turnId;
  const { row, out } = await waitPending('cxa');
  // Who asked, what, since when and until when; the secret in the command line masked on the CLI.
  assert.equal(row.native.runtime, 'codex-app-server');
  assert.equal(row.native.turnId, turnId);
  assert.match(row.native.threadId, /^thr-/);
  assert.equal(row.native.delegated, false);
  assert.equal(row.native.kind, 'command');
  assert.equal(row.native.view.command.text, `echo approved-output # ${LABEL}`);
  assert.equal(Date.parse(row.expiresAt) - Date.parse(row.createdAt), 600_000);
  assert.ok(!out.includes(SECRET), 'approval list never shows the secret');
  // The console's Approvals page and the event stream: the same request, masked.
  const c = await signIn(d);
  const page = await c.get('/console/approvals');
  assert.equal(page.status, 200);
  assert.ok(page.body.includes(`data-approval="${row.id}"`));
  assert.ok(page.body.includes(LABEL), 'the page shows the label');
  assert.ok(page.body.includes('Approve for the rest of the turn'));
  assert.ok(!page.body.includes(SECRET), 'the console never shows the secret');
  const requested = await events.next(
    (f) => f.type === 'approval.requested' && f.data.id === row.id,
  );
  assert.equal((requested.data as any).native.turnId, turnId);
  assert.match(
    String(requested.data.title),
    /asks to run: echo approved-output # \[X-Gateway-Team\]/,
  );
  const decided = await d.cli([
    'approval',
    'decide',
    row.id,
    'approve',
    '--for-turn',
    '--note',
    'fine',
  ]);
  assert.equal(decided.code, 0, decided.stderr + decided.stdout);
  const t = await waitTurn(d, turnId);
  assert.equal(t.state, 'succeeded', JSON.stringify(t));
  assert.equal(await reply('dm:cxa'), 'ran: approved-output');
  const rec = h.recordOf('dm:cxa');
  assert.deepEqual(rec.approvals, [{ decision: 'acceptForSession' }, { decision: 'accept' }]);
  const all = (await listed('cxa')).rows;
  assert.deepEqual(
    all.map((a) => [a.status, a.decidedBy, a.note, a.native.scope]),
    [
      ['approved', 'policy', 'approved for the rest of the turn by human:operator', 'once'],
      ['approved', 'human:operator', 'fine', 'turn'],
    ],
  );
  await events.next((f) => f.type === 'approval.decided' && f.data.id === row.id);
  assert.ok(!JSON.stringify(events.frames).includes(SECRET), 'the stream never carries the secret');
  // The audit trail: the runtime's requests and the person's decision.
  // Rows reach the store in batches: read until the runtime's two and the person's one are there.
  let rows: any[] = [];
  let native: any[] = [];
  await waitFor(
    async () => {
      const audit = await d.cli(['audit', '--json', '--limit', '100']);
      assert.equal(audit.code, 0, audit.stderr);
      rows = JSON.parse(audit.stdout).data.entries;
      native = rows.filter((r: any) => r.via === 'runtime' && r.turnId === turnId);
      return native.length >= 2 && rows.some((r: any) => r.tool === 'approval/decide');
    },
    10_000,
    200,
  );
  assert.deepEqual(
    native.map((r: any) => [r.tool, r.outcome, r.agentId, r.runtime]),
    [
      ['approval/command', 'ok', 'cxa', 'codex-app-server'],
      ['approval/command', 'ok', 'cxa', 'codex-app-server'],
    ],
  );
  const person = rows.find((r: any) => r.via === 'operator' && r.tool === 'approval/decide');
  assert.ok(person, JSON.stringify(rows.map((r: any) => [r.via, r.tool])));
  assert.deepEqual([person.agentId, person.outcome], ['human:operator', 'ok']);
});

test('deny, two deciders at once: the first wins, the other is already_decided; Codex is told decline', async () => {
  const { turns } = await post(d, 'dm:cxd', 'Deploy it.');
  const { row } = await waitPending('cxd');
  // Both at once, each with the CLI helper's timeout.
  const [a, b] = (
    await Promise.all(
      ['ana', 'bo'].map((who) =>
        d.cli([
          'approval',
          'decide',
          row.id,
          'reject',
          '--as',
          `human:${who}`,
          '--note',
          'not now',
        ]),
      ),
    )
  ).map((r) => ({ code: r.code, out: r.stdout }));
  const codes = [a!.code, b!.code].sort();
  assert.deepEqual(codes, [0, 1], `${a!.out} ${b!.out}`);
  const loser = [a!, b!].find((x) => x.code === 1)!;
  assert.equal(JSON.parse(loser.out).error.code, 'already_decided');
  const t = await waitTurn(d, turns[0]!.turnId);
  assert.equal(t.state, 'succeeded');
  assert.equal(await reply('dm:cxd'), 'declined: decline');
  const [ended] = (await listed('cxd')).rows;
  assert.equal(ended!.status, 'denied');
  assert.match(ended!.decidedBy!, /^human:(ana|bo)$/);
  const again = await d.cli(['approval', 'decide', row.id, 'approve']);
  assert.equal(JSON.parse(again.stdout).error.code, 'already_decided');
  const unknown = await d.cli(['approval', 'decide', 'appr_0000000000000000', 'approve']);
  assert.equal(JSON.parse(unknown.stdout).error.code, 'not_found');
});

test('no decision by the deadline: expired, Codex is told decline (fail closed)', async () => {
  const { turns } = await post(d, 'dm:cxt', 'Anything?');
  const t = await waitTurn(d, turns[0]!.turnId);
  assert.equal(t.state, 'succeeded');
  assert.equal(await reply('dm:cxt'), 'declined: decline');
  const [row] = (await listed('cxt')).rows;
  assert.deepEqual(
    [row!.status, row!.decidedBy, row!.note],
    ['expired', 'daemon', 'no decision by the deadline'],
  );
});

test('the policy allows a matching command without asking anyone', async () => {
  const { turns } = await post(d, 'dm:cxp', 'Build?');
  const t = await waitTurn(d, turns[0]!.turnId);
  assert.equal(t.state, 'succeeded');
  assert.equal(await reply('dm:cxp'), 'ran: approved-output');
  const [row] = (await listed('cxp')).rows;
  assert.deepEqual([row!.status, row!.decidedBy], ['approved', 'policy']);
  assert.equal(row!.note, 'allowCommands: echo approved-output *');
});

test('the turn is cancelled while its request waits: the request is cancelled, never left pending', async () => {
  const { turns } = await post(d, 'dm:cxc', 'Clean up.');
  const turnId = turns[0]!.turnId;
  const { row } = await waitPending('cxc');
  const r = await d.cli(['turn', 'cancel', turnId]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const t = await waitTurn(d, turnId);
  assert.equal(t.state, 'cancelled');
  await waitFor(async () => (await listed('cxc')).rows[0]!.status !== 'pending', 10_000, 100);
  const [ended] = (await listed('cxc')).rows;
  assert.equal(ended!.id, row.id);
  assert.deepEqual([ended!.status, ended!.note], ['cancelled', 'the turn ended']);
});
