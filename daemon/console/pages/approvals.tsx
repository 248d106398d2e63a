import type { OutputOf } from '../../../catalog/descriptor.js';
import type { approvalGet } from '../../../catalog/domains/approval.js';
import { Csrf } from '../layout.js';

type Native = OutputOf<typeof approvalGet>['approval']['native'];

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
  /** A runtime's own request: who asked and what (masked and bounded by the daemon); null for an agent's. */
  readonly native: Native;
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
/** Approve or Deny one waiting request with an optional reason; `back` is where the answer returns. */
export function DecideForm(props: {
  id: string;
  csrf: string;
  back?: string | undefined;
  size: number;
  /** A runtime's own request: it may be approved for the rest of its turn. */
  native?: boolean;
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
      {props.native ? (
        <button type="submit" name="decision" value="approve-turn">
          Approve for the rest of the turn
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
          <section class="card" data-approval={a.id} aria-label={a.title}>
            <strong>{a.title}</strong>{' '}
            <span class="mute">
              from {a.requestedBy} on {a.serverId}, waiting{' '}
              <time datetime={a.createdAt} data-since={a.createdAt}>
                since {a.createdAt}
              </time>
              , time left before it is denied:{' '}
              <time datetime={a.expiresAt} data-until={a.expiresAt}>
                until {a.expiresAt}
              </time>
            </span>
            {a.native ? <NativeAsked n={a.native} /> : <pre>{a.detail}</pre>}
            <DecideForm
              id={a.id}
              csrf={props.csrf}
              back={props.back}
              size={40}
              native={a.native !== null}
            />
          </section>
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

/** Who in the runtime asked (turn, thread or subagent, delegated) and what, as the daemon masked and bounded it. */
export function NativeAsked(props: { n: NonNullable<Native> }) {
  const n = props.n;
  const texts = (['command', 'cwd', 'diff', 'toolName', 'toolInput', 'reason'] as const).flatMap(
    (k) => {
      const t = n.view[k];
      return t ? [[k, t] as const] : [];
    },
  );
  return (
    <div data-native={n.kind}>
      <p class="mute">
        {n.runtime} {n.kind.replace('_', ' ')}
        {n.turnId ? `, turn ${n.turnId}` : ''}
        {n.threadId ? `, thread ${n.threadId}` : ''}
        {n.subagentId ? `, subagent ${n.subagentId}` : ''}
        {n.delegated ? <strong data-delegated="true"> — asked by a delegated child</strong> : null}
      </p>
      {texts.map(([k, t]) => (
        <>
          <span class="mute">{k}</span>
          <pre data-view={k}>{t.text}</pre>
          {t.cut ? (
            <p class="mute" data-cut={k}>
              cut: {t.cut.keptBytes} of {t.cut.totalBytes} bytes shown
            </p>
          ) : null}
        </>
      ))}
    </div>
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
                  <td class="wide">
                    {a.requestedBy}
                    {a.native
                      ? ` (${a.native.runtime}${a.native.delegated ? ', delegated' : ''})`
                      : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
