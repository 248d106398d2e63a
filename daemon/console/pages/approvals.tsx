import { Csrf } from '../layout.js';
import { ApprovalCard, type NativeView } from './approval-card.js';

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
  /** A runtime's own request: who asked and what; null or absent for one an agent filed. */
  readonly native?: NativeView | null;
}

/** What the page shows (approvals-read.ts reads it). */
export interface ApprovalsData {
  /** Pending requests on every server, not only those on this page. */
  readonly waiting: number;
  readonly pending: readonly ApprovalRow[];
  /** Servers with older pending requests than shown: how many wait there, and the cursor to the next page. */
  readonly more: readonly {
    readonly serverId: string;
    readonly waiting: number;
    readonly cursor: string;
  }[];
  readonly decided: readonly ApprovalRow[];
  /** On an older page: the server it pages through (not live, no decided list). */
  readonly older?: string;
  readonly error?: string;
}

/** The link to a server's next page of pending requests. */
export function olderHref(serverId: string, cursor: string): string {
  return `/console/approvals?${new URLSearchParams({ server: serverId, cursor })}`;
}

/** Approvals: pending requests (operator read approval list, status pending) to decide, a page at a time, then the latest decided ones. */
/**
 * Approve or Deny one waiting request with an optional reason; `back` is
 * where the answer returns. A runtime's own request (`turn`) can also be
 * approved for the rest of its turn.
 */
export function DecideForm(props: {
  id: string;
  csrf: string;
  back?: string | undefined;
  size: number;
  turn?: boolean;
}) {
  return (
    <form
      class="inline"
      method="post"
      action={`/console/approvals/${encodeURIComponent(props.id)}/decide`}
    >
      <Csrf token={props.csrf} />
      {props.back ? <input type="hidden" name="back" value={props.back} /> : null}
      <label>
        Reason <input name="note" size={props.size} maxlength={2000} />
      </label>
      <button type="submit" name="decision" value="approve">
        Approve
      </button>
      {props.turn ? (
        <button type="submit" name="decision" value="approve-turn">
          Approve for turn
        </button>
      ) : null}
      <button type="submit" name="decision" value="reject" class="danger">
        Deny
      </button>
    </form>
  );
}

export function ApprovalsBody(props: { data: ApprovalsData; csrf: string; back?: string }) {
  const d = props.data;
  return (
    <>
      <h1>Approvals</h1>
      <h2>
        Pending{' '}
        <span class="mute" data-waiting={String(d.waiting)}>
          ({d.waiting} waiting)
        </span>
      </h2>
      {d.error ? (
        <p class="bad" role="alert">
          {d.error}
        </p>
      ) : null}
      {d.older !== undefined ? (
        <p class="mute">
          Older requests on {d.older}: this page does not update live.{' '}
          <a href="/console/approvals">Newest</a>
        </p>
      ) : null}
      {d.pending.length === 0 ? (
        <p class="mute">
          {d.older !== undefined ? 'No older request waits here.' : 'Nothing waits for a decision.'}
        </p>
      ) : (
        d.pending.map((a) => (
          <ApprovalCard
            a={a}
            form={
              <DecideForm
                id={a.id}
                csrf={props.csrf}
                back={props.back}
                size={40}
                turn={Boolean(a.native)}
              />
            }
          />
        ))
      )}
      {d.more.map((m) => (
        <p>
          <a href={olderHref(m.serverId, m.cursor)} rel="next">
            Older requests on {m.serverId} →
          </a>{' '}
          <span class="mute">({m.waiting} waiting there)</span>
        </p>
      ))}
      {d.older !== undefined ? null : <Decided rows={d.decided} />}
    </>
  );
}

function Decided(props: { rows: readonly ApprovalRow[] }) {
  return (
    <>
      <h2>Decided</h2>
      {props.rows.length === 0 ? (
        <p class="mute">No decided approvals yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Title</th>
                <th>Status</th>
                <th>By</th>
                <th>Reason</th>
                <th>When</th>
                <th class="wide">Requested by</th>
              </tr>
            </thead>
            <tbody>
              {props.rows.map((a) => (
                <tr data-approval={a.id}>
                  <td>{a.title}</td>
                  <td class={a.status === 'approved' ? 'ok' : 'bad'}>{a.status}</td>
                  <td>{a.decidedBy ?? '—'}</td>
                  <td>{a.note ?? ''}</td>
                  <td class="mono">{a.decidedAt ?? a.expiresAt}</td>
                  <td class="wide">{a.requestedBy}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
