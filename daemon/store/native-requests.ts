import {
  ANY_SERVER,
  type Approval,
  type ApprovalRow as Row,
  approvalOf,
  COLUMNS,
  INSERT_NATIVE,
  type NativeFiling,
  SET_END,
} from './approval-rows.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';

/** How a runtime's own request ends without a person: expired at its deadline, cancelled with its turn. */
type End = 'expired' | 'cancelled';

/**
 * The rows of a runtime's own requests (its permission prompt, filed by the
 * daemon's NativeApprovals): filed pending or already settled by policy,
 * ended by the daemon at the deadline or with the turn. A person's decision
 * goes through ApprovalStore like any other. Every write announces itself
 * (StoreNotices) once committed.
 */
export class NativeRequests {
  constructor(private readonly s: StoreContext) {}

  /** Files a runtime's own request, pending or (policy, ended turn) already settled. */
  file(f: NativeFiling): Promise<Approval> {
    return this.s.sql.tx(async (q) => {
      const now = this.s.now();
      const id = newId('appr');
      const n = f.native;
      const done = f.settled;
      await q.run(INSERT_NATIVE, [
        id,
        f.serverId,
        `agent:${f.agentId}`,
        f.title,
        done?.status ?? 'pending',
        done?.by ?? null,
        done?.note ?? null,
        done ? now : null,
        now + f.waitMs,
        now,
        now,
        n.runtime,
        f.leaseId,
        n.turnId,
        n.threadId,
        n.subagentId,
        n.delegated ? 1 : 0,
        n.kind,
        JSON.stringify(n.view),
        done?.status === 'approved' ? 'once' : null,
      ]);
      const approval = approvalOf((await q.get<Row>(ANY_SERVER, [now, id]))!);
      this.s.notices.after(q, { kind: 'approval.requested', serverId: f.serverId, approval });
      if (done)
        this.s.notices.after(q, { kind: 'approval.decided', serverId: f.serverId, approval });
      return approval;
    });
  }

  /** Ends a pending request as the daemon; null when it was no longer pending (someone decided first). */
  end(id: string, status: End, by: string, note: string): Promise<Approval | null> {
    return this.s.sql.tx(async (q) => {
      const now = this.s.now();
      const changed = await q.run(SET_END, [status, by, note, now, now, id]);
      if (changed.changes === 0) return null;
      const row = (await q.get<Row>(ANY_SERVER, [now, id]))!;
      const approval = approvalOf(row);
      this.s.notices.after(q, { kind: 'approval.decided', serverId: row.server_id, approval });
      return approval;
    });
  }

  /** Cancels what a turn's runtime still waits on once the turn has ended (on any daemon); the ids it cancelled. */
  endTurn(turnId: string): Promise<string[]> {
    return this.s.sql.tx(async (q) => {
      const now = this.s.now();
      const rows = await q.all<Row>(
        `UPDATE approvals SET status = 'cancelled', decided_by = 'daemon', note = 'the turn ended', decided_at = ?, revision = revision + 1, updated_at = ?
         WHERE turn_id = ? AND status = 'pending' RETURNING ${COLUMNS}`,
        [now, now, turnId, now],
      );
      for (const r of rows)
        this.s.notices.after(q, {
          kind: 'approval.decided',
          serverId: r.server_id,
          approval: approvalOf(r),
        });
      return rows.map((r) => r.id);
    });
  }
}
