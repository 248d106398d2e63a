import type { NeedsYouData } from '../needs-you-read.js';
import type { TurnView } from '../turns-read.js';
import { turnHref } from './turns.js';
import { DecideForm, NativeAsked } from './approvals.js';

/** Where a decision made on the overview comes back to. */
const BACK = '/console/';

function TurnRows(props: { serverId: string; turns: readonly TurnView[]; kind: string }) {
  return (
    <div class="scroll">
      <table data-needs={props.kind}>
        <thead>
          <tr>
            <th>Agent</th>
            <th>Target</th>
            <th>State</th>
            <th>Messages</th>
            <th>Turn</th>
          </tr>
        </thead>
        <tbody>
          {props.turns.map((t) => (
            <tr data-turn={t.id}>
              <td>{t.agentId}</td>
              <td class="mono">{t.target}</td>
              <td class="bad">
                {t.state === 'succeeded' ? 'no reply' : t.state}
                {t.error ? ` (${t.error})` : ''}
              </td>
              <td class="mono">{t.messageIds.join(' ')}</td>
              <td>
                <a href={turnHref(props.serverId, t.id)}>{t.id}</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What needs the person: approvals to decide (right here), turns that failed, messages no agent answered. */
export function NeedsYou(props: { data: NeedsYouData; csrf: string }) {
  const d = props.data;
  const nothing = d.waiting === 0 && d.failed.length === 0 && d.unanswered.length === 0;
  return (
    <section aria-label="Needs you" data-needs-you>
      <h2>Needs you</h2>
      {nothing ? <p class="mute">Nothing needs you now.</p> : null}
      {d.waiting > 0 ? (
        <>
          <h3>
            Approvals waiting{' '}
            <span class="mute" data-waiting={String(d.waiting)}>
              ({d.waiting})
            </span>
          </h3>
          {d.approvals.map((a) => (
            <section class="card" data-approval={a.id} aria-label={a.title}>
              <strong>{a.title}</strong>{' '}
              <span class="mute">
                from {a.requestedBy} on {a.serverId}, expires {a.expiresAt}
              </span>
              {a.native ? <NativeAsked n={a.native} /> : a.detail ? <pre>{a.detail}</pre> : null}
              <DecideForm
                id={a.id}
                csrf={props.csrf}
                back={BACK}
                size={30}
                native={a.native !== null}
              />
            </section>
          ))}
          {d.waiting > d.approvals.length ? (
            <p>
              <a href="/console/approvals">All {d.waiting} waiting approvals →</a>
            </p>
          ) : null}
        </>
      ) : null}
      {d.failed.length > 0 ? (
        <>
          <h3>Failed or interrupted turns</h3>
          <TurnRows serverId={d.serverId} turns={d.failed} kind="failed" />
        </>
      ) : null}
      {d.unanswered.length > 0 ? (
        <>
          <h3>Unanswered messages</h3>
          <p class="mute">The agent's latest turn on that conversation ended without a reply.</p>
          <TurnRows serverId={d.serverId} turns={d.unanswered} kind="unanswered" />
        </>
      ) : null}
    </section>
  );
}
