import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { approvalList } from '../../catalog/domains/approval.js';
import { BACKENDS, type Pair } from '../../devkit/store-contract.js';
import type { NativeAsk } from '../../daemon/approvals/ask.js';
import type { Approval } from '../../daemon/store/approval-rows.js';
import { waitFor } from '../../devkit/wait.js';

/**
 * Two daemons on one store (the same SQLite file; the same PostgreSQL
 * database): a runtime of daemon A waits on its request; people decide it
 * through daemon B at the same moment, twice. The first decision wins, the
 * second is already_decided, and A's waiter learns the decision from the
 * store at its next read (a second later on A's clock), not from B.
 */

const ASK: NativeAsk = {
  serverId: 's1',
  agent: 'cx',
  runtime: 'codex-app-server',
  leaseId: 'lease-a',
  turnId: 'turn_a',
  threadId: 'thr-P',
  subagentId: null,
  delegated: false,
  kind: 'command',
  command: 'make deploy',
};

async function pending(p: Pair) {
  let row: Approval | undefined;
  const seen = await waitFor(async () => {
    const page = await p.b.services
      .server({ serverId: 's1', agentId: 'x' })
      .call(approvalList, { status: 'pending', limit: 10 });
    row = page.approvals[0];
    return row !== undefined;
  }, 20_000);
  assert.ok(seen && row, 'no pending request seen through daemon B');
  return row;
}

for (const backend of BACKENDS) {
  test(`[${backend.name}] a request waiting on daemon A, decided twice at once through daemon B: first wins, A learns it from the store`, async (t) => {
    const p = await backend.pair(t);
    writeFileSync(join(p.a.home, 'profile.json'), JSON.stringify({ agents: [{ id: 'cx' }] }));
    p.a.services.reloadProfile();
    const answer = p.a.approvals.ask(ASK);
    const row = await pending(p);
    const outcomes = await Promise.all(
      [
        ['approve', 'human:ana'],
        ['reject', 'human:bo'],
      ].map(([decision, by]) =>
        p.b.approvals.decideAsOperator(row.id, decision as 'approve' | 'reject', null, by!).then(
          (r) => `ok:${r.approval.status}`,
          (e: { code?: string }) => e.code,
        ),
      ),
    );
    assert.equal(outcomes.filter((o) => o === 'already_decided').length, 1, String(outcomes));
    const won = outcomes.find((o) => o?.startsWith('ok:'))!.slice(3);
    // A's waiter reads the row again on its own clock (its timer may be armed only after the row shows).
    let settled = false;
    void answer.finally(() => (settled = true));
    // At most 500 s of its clock: well inside the 600 s deadline, so the answer is the decision.
    for (let i = 0; i < 500 && !settled; i++) {
      p.a.clock.advance(1_000);
      await new Promise((r) => setTimeout(r, 10));
    }
    const a = await answer;
    assert.equal(a.decision, won);
    const seen = (await p.a.approvals.getAsOperator(row.id)).approval;
    assert.equal(seen.status, won);
    assert.equal(seen.revision, 2);
  });
}
