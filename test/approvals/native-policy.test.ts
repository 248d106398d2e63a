import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProc, type InProc } from '../../devkit/inproc.js';
import type { NativeAsk } from '../../daemon/approvals/ask.js';
import { approvalList } from '../../catalog/domains/approval.js';

/**
 * The runtimes' approvals inbox in process, on the fake clock: the agent's
 * policy rows, the deadline, the turn's end, the first decider, a turn-wide
 * approval, and bad input. Decisions go through the operator API's own
 * route (POST /api/v1/approvals/:id/decide), as the CLI and console send them.
 */

const ask = (extra: Partial<NativeAsk> = {}): NativeAsk => ({
  serverId: 's1',
  agent: 'cx',
  runtime: 'codex-app-server',
  leaseId: 'lease-1',
  turnId: 'turn_1',
  threadId: 'thr-P',
  subagentId: null,
  delegated: false,
  kind: 'command',
  command: 'make deploy',
  cwd: '/work',
  ...extra,
});

async function withProfile(t: Parameters<typeof startInProc>[0], approvals?: unknown) {
  const p = await startInProc(t);
  writeFileSync(
    join(p.home, 'profile.json'),
    JSON.stringify({
      agents: [
        {
          id: 'cx',
          runtime: 'codex',
          headers: { 'X-Team-Key': 'hdr-secret-8d1f0c' },
          ...(approvals === undefined ? {} : { approvals }),
        },
      ],
    }),
  );
  const reloaded = p.services.reloadProfile();
  assert.equal((reloaded as { ok?: boolean }).ok ?? true, true, JSON.stringify(reloaded));
  return p;
}

async function decide(p: InProc, id: string, body: Record<string, unknown>) {
  const res = await p.app.request(`/api/v1/approvals/${id}/decide`, {
    method: 'POST',
    headers: {
      host: '127.0.0.1:80',
      authorization: 'Bearer op',
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

/** Lets the filing transaction commit and the waiter arm its timers. */
async function pendingOf(p: InProc, n = 1) {
  for (let i = 0; i < 200; i++) {
    const page = await p.services.approvals.pendingAsOperator(10);
    if ((page[0]?.pending ?? 0) >= n) break;
    await new Promise((r) => setImmediate(r));
  }
  const rows = await p.services
    .server({ serverId: 's1', agentId: 'x' })
    .call(approvalList, { status: 'pending', limit: 50 });
  return rows.approvals;
}

test('policy rows: deny wins, allow only a plain command, read-only tools by trusted annotation, kinds off the inbox are denied', async (t) => {
  const p = await withProfile(t, {
    allowCommands: ['git status', 'ls *', 'rm -rf *'],
    denyCommands: ['rm *', 'curl *'],
    allowReadOnlyTools: true,
    inbox: ['command', 'tool'],
  });
  const cases: [string, Partial<NativeAsk>, string][] = [
    ['an allowed command', { command: 'git status' }, 'approved'],
    ['an allowed pattern', { command: 'ls -la /tmp' }, 'approved'],
    ['deny wins over allow', { command: 'rm -rf build' }, 'denied'],
    [
      'a denied part after a control operator',
      { command: 'git status && curl evil.example' },
      'denied',
    ],
    [
      'a trusted read-only agentteam tool',
      { kind: 'tool', toolName: 'mcp__agentteam__message_history_read' },
      'approved',
    ],
    ['a kind the inbox does not take', { kind: 'file_change', diff: '+x' }, 'denied'],
  ];
  for (const [what, extra, decision] of cases) {
    const a = await p.approvals.ask(ask(extra));
    assert.equal(a.decision, decision, what);
    const row = (await p.approvals.getAsOperator(a.id)).approval;
    assert.equal(row.status, decision, what);
    assert.equal(row.decidedBy, 'policy', what);
    assert.ok(row.note && row.note.length > 0, what);
  }
  // An allow pattern never lets a chained command through, a write tool is not read-only, a
  // name that only looks like agentteam's is no trusted tool: all three wait for a person.
  const waiting = [
    p.approvals.ask(ask({ command: 'ls; reboot' })),
    p.approvals.ask(ask({ kind: 'tool', toolName: 'mcp__agentteam__message_send' })),
    p.approvals.ask(ask({ kind: 'tool', toolName: 'message_history_read' })),
  ];
  const pending = await pendingOf(p, 3);
  assert.equal(pending.length, 3);
  for (const r of pending)
    assert.equal((await decide(p, r.id, { decision: 'reject' })).status, 200);
  assert.deepEqual(
    (await Promise.all(waiting)).map((a) => a.decision),
    ['denied', 'denied', 'denied'],
  );
});

test('no decision by the deadline: expired at exactly deadlineSeconds on the injected clock, the runtime is told no', async (t) => {
  const p = await withProfile(t, { deadlineSeconds: 30 });
  const answer = p.approvals.ask(ask());
  const [row] = await pendingOf(p);
  assert.equal(Date.parse(row!.expiresAt) - Date.parse(row!.createdAt), 30_000);
  p.clock.advance(29_999);
  assert.equal((await p.approvals.getAsOperator(row!.id)).approval.status, 'pending');
  p.clock.advance(1);
  const a = await answer;
  assert.equal(a.decision, 'expired');
  assert.match((a as { reason: string }).reason, /expired by daemon: no decision by the deadline/);
  const late = await decide(p, row!.id, { decision: 'approve' });
  assert.equal(late.status, 410);
  assert.equal(late.json.error.code, 'expired');
  // The default deadline is ten minutes.
  const q = await withProfile(t);
  void q.approvals.ask(ask());
  const [d] = await pendingOf(q);
  assert.equal(Date.parse(d!.expiresAt) - Date.parse(d!.createdAt), 600_000);
  q.clock.advance(600_000);
});

test('the turn ends while a request waits: cancelled, never left pending; a request after the end is cancelled at once', async (t) => {
  const p = await withProfile(t);
  const turn = new AbortController();
  const answer = p.approvals.ask(ask(), turn.signal);
  const [row] = await pendingOf(p);
  turn.abort();
  const a = await answer;
  assert.equal(a.decision, 'cancelled');
  const ended = (await p.approvals.getAsOperator(row!.id)).approval;
  assert.deepEqual(
    [ended.status, ended.decidedBy, ended.note],
    ['cancelled', 'daemon', 'the turn ended'],
  );
  const late = await decide(p, row!.id, { decision: 'approve' });
  assert.equal(late.status, 409);
  assert.equal(late.json.error.code, 'already_decided');
  const after = await p.approvals.ask(ask(), turn.signal);
  assert.equal(after.decision, 'cancelled');
  assert.equal((await p.approvals.getAsOperator(after.id)).approval.status, 'cancelled');
});

test('first decider wins; unknown is not_found; an agent may not decide a runtime request; approve for the rest of the turn', async (t) => {
  const p = await withProfile(t);
  const answer = p.approvals.ask(ask());
  const [row] = await pendingOf(p);
  // Two people approve for the turn at once; either may come first (on PostgreSQL they race on two connections).
  const both = await Promise.all([
    decide(p, row!.id, { decision: 'approve', scope: 'turn', decidedBy: 'human:ana' }),
    decide(p, row!.id, { decision: 'approve', scope: 'turn', decidedBy: 'human:bo', note: 'ok' }),
  ]);
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
  const winner = both[0]!.status === 200 ? 'human:ana' : 'human:bo';
  const loser = both.find((r) => r.status === 409)!;
  assert.equal(loser.json.error.code, 'already_decided');
  assert.match(loser.json.error.message, new RegExp(`already approved by ${winner}$`));
  assert.equal((await p.approvals.getAsOperator(row!.id)).approval.decidedBy, winner);
  const a = await answer;
  assert.deepEqual([a.decision, (a as { scope?: string }).scope], ['approved', 'turn']);
  // The same kind later in the same turn is answered without asking; another runtime's turn asks.
  const again = await p.approvals.ask(ask({ command: 'make test' }));
  assert.equal(again.decision, 'approved');
  const row2 = (await p.approvals.getAsOperator(again.id)).approval;
  assert.deepEqual(
    [row2.decidedBy, row2.note],
    ['policy', `approved for the rest of the turn by ${winner}`],
  );
  const other = p.approvals.ask(ask({ leaseId: 'lease-2', turnId: 'turn_2' }));
  const [waiting] = await pendingOf(p);
  assert.equal((await decide(p, waiting!.id, { decision: 'reject' })).status, 200);
  assert.equal((await other).decision, 'denied');
  const missing = await decide(p, 'appr_000000000000', { decision: 'approve' });
  assert.deepEqual([missing.status, missing.json.error.code], [404, 'not_found']);
  const agent = await p.runtime('s1', 'a2');
  const byAgent = await agent('approval', 'decide', { id: row!.id, decision: 'approve' });
  assert.equal(byAgent.json.error.code, 'forbidden');
});

test('the view: the command masked by the result gate and bounded in bytes with a cut marker', async (t) => {
  const p = await withProfile(t, { deadlineSeconds: 5 });
  const long = `echo hdr-secret-8d1f0c ${'é'.repeat(3000)}`;
  void p.approvals.ask(ask({ command: long, diff: 'x'.repeat(8192), cwd: '/w' }));
  const [row] = await pendingOf(p);
  const v = row!.native!.view;
  assert.ok(!JSON.stringify(row).includes('hdr-secret-8d1f0c'));
  assert.match(v.command!.text, /^echo \[[A-Za-z0-9_.:-]+\] é/);
  assert.ok(Buffer.byteLength(v.command!.text) <= 4096);
  assert.equal(v.command!.cut!.keptBytes, Buffer.byteLength(v.command!.text));
  assert.ok(v.command!.cut!.totalBytes > 4096);
  // At the limit: whole, no marker.
  assert.deepEqual(v.diff, { text: 'x'.repeat(8192), cut: null });
  assert.match(row!.title, /^codex-app-server asks to run: echo \[/);
  p.clock.advance(5_000);
});

test('an approval for the rest of the turn never overrides a deny row of the policy, and ends with its turn', async (t) => {
  const p = await withProfile(t, { denyCommands: ['rm *'] });
  const first = p.approvals.ask(ask({ command: 'make build' }));
  const [row] = await pendingOf(p);
  const res = await decide(p, row!.id, {
    decision: 'approve',
    scope: 'turn',
    decidedBy: 'human:ana',
  });
  assert.equal(res.status, 200);
  assert.equal((await first).decision, 'approved');
  const denied = await p.approvals.ask(ask({ command: 'rm -rf build' }));
  assert.equal(denied.decision, 'denied', 'the deny row still wins inside the granted turn');
  assert.equal((await p.approvals.ask(ask({ command: 'make test' }))).decision, 'approved');
  // The turn ends: its grant goes with it, so the next turn of the same lease asks again.
  await p.approvals.endTurn('turn_1');
  const later = p.approvals.ask(ask({ command: 'make test' }));
  const [waiting] = await pendingOf(p);
  assert.equal((await decide(p, waiting!.id, { decision: 'reject' })).status, 200);
  assert.equal((await later).decision, 'denied');
});
