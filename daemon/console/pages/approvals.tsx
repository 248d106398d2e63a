import { Csrf } from '../layout.js';

export interface ApprovalRow {
  readonly serverId: string;
  readonly id: string;
  readonly title: string;
  readonly detail: string;
  readonly status: string;
  readonly requestedBy: string;
  readonly decidedBy: string | null;
  readonly note: string | null;
  readonly expiresAt: string;
  readonly decidedAt: string | null;
  readonly createdAt: string;
}

/** Approvals: pending requests (operator read approval list, status pending) to decide, then the latest decided ones. */
export function ApprovalsBody(props: { pending: readonly ApprovalRow[]; decided: readonly ApprovalRow[]; csrf: string }) {
  return (
    <>
      <h1>Approvals</h1>
      <h2>Pending <span class="mute">({props.pending.length})</span></h2>
      {props.pending.length === 0 ? <p class="mute">Nothing waits for a decision.</p> : props.pending.map((a) => (
        <section class="card" data-approval={a.id} aria-label={a.title}>
          <strong>{a.title}</strong> <span class="mute">from {a.requestedBy} on {a.serverId}, expires {a.expiresAt}</span>
          <pre>{a.detail}</pre>
          <form class="inline" method="post" action={`/console/approvals/${encodeURIComponent(a.id)}/decide`}>
            <Csrf token={props.csrf} />
            <label>Reason <input name="note" size={40} maxlength={2000} /></label>
            <button type="submit" name="decision" value="approve">Approve</button>
            <button type="submit" name="decision" value="reject" class="danger">Deny</button>
          </form>
        </section>
      ))}
      <h2>Decided</h2>
      {props.decided.length === 0 ? <p class="mute">No decided approvals yet.</p> : (
        <div class="scroll">
          <table>
            <thead><tr><th>Title</th><th>Status</th><th>By</th><th>Reason</th><th>When</th><th class="wide">Requested by</th></tr></thead>
            <tbody>
              {props.decided.map((a) => (
                <tr data-approval={a.id}>
                  <td>{a.title}</td><td class={a.status === 'approved' ? 'ok' : 'bad'}>{a.status}</td><td>{a.decidedBy ?? '—'}</td>
                  <td>{a.note ?? ''}</td><td class="mono">{a.decidedAt ?? a.expiresAt}</td><td class="wide">{a.requestedBy}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
