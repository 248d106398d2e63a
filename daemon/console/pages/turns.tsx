import { Csrf } from '../layout.js';
import type { TurnDetailData, TurnsData, TurnView } from '../turns-read.js';

/** A turn's detail page (live, like the list). */
export const turnHref = (serverId: string, id: string) =>
  `/console/turn?${new URLSearchParams({ server: serverId, id })}`;

/**
 * How long since `at`: the script keeps the text current every second, on the
 * person's side, so a running turn's clock costs the live stream nothing;
 * without the script it reads "since" and the time.
 */
function Since(props: { at: string }) {
  return (
    <time datetime={props.at} data-since={props.at}>
      since {props.at.slice(11, 19)}
    </time>
  );
}

/** Cancel, with the confirmation the script asks for; `back` is where the answer returns. */
function CancelForm(props: { serverId: string; turn: TurnView; csrf: string; back: string }) {
  const t = props.turn;
  return (
    <form
      class="inline"
      method="post"
      action={`/console/turns/${encodeURIComponent(props.serverId)}/${encodeURIComponent(t.id)}/cancel`}
      data-confirm={`Cancel the turn of ${t.agentId} on ${t.target}? ${t.state === 'running' ? 'Its runtime is stopped at once.' : 'It will not run.'}`}
    >
      <Csrf token={props.csrf} />
      <input type="hidden" name="back" value={props.back} />
      <button type="submit" class="danger" aria-label={`Cancel the turn of ${t.agentId}`}>
        Cancel
      </button>
    </form>
  );
}

function Active(props: {
  title: string;
  serverId: string;
  turns: readonly TurnView[];
  csrf: string;
  empty: string;
}) {
  const running = props.title === 'Running';
  return (
    <>
      <h2>
        {props.title} <span class="mute">({props.turns.length})</span>
      </h2>
      {props.turns.length === 0 ? (
        <p class="mute">{props.empty}</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Turn</th>
                <th>Agent</th>
                <th>Target</th>
                <th class="num">Messages</th>
                <th>{running ? 'Running' : 'Waiting'}</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {props.turns.map((t) => (
                <tr data-turn={t.id} data-state={t.state}>
                  <td class="mono">
                    <a href={turnHref(props.serverId, t.id)}>{t.id}</a>
                  </td>
                  <td>{t.agentId}</td>
                  <td class="mono">{t.target}</td>
                  <td class="num">{t.messageIds.length}</td>
                  <td>
                    <Since at={(running ? t.startedAt : null) ?? t.createdAt} />
                  </td>
                  <td>
                    <CancelForm
                      serverId={props.serverId}
                      turn={t}
                      csrf={props.csrf}
                      back="/console/turns"
                    />
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

/** How long an ended turn ran (or waited, when it never started), in seconds. */
function took(t: TurnView): string {
  if (t.finishedAt === null) return '—';
  const from = Date.parse(t.startedAt ?? t.createdAt);
  return `${((Date.parse(t.finishedAt) - from) / 1000).toFixed(1)} s`;
}

const stateClass = (t: TurnView) =>
  t.state === 'succeeded' ? 'ok' : t.state === 'cancelled' ? 'mute' : 'bad';

/** Turns: what runs and waits now, each with a cancel button, then the newest that ended. */
export function TurnsBody(props: { data: TurnsData; csrf: string }) {
  const { data } = props;
  return (
    <>
      <h1>
        Turns <span class="mute">on {data.serverId}</span>
      </h1>
      <Active
        title="Running"
        serverId={data.serverId}
        turns={data.running}
        csrf={props.csrf}
        empty="No runtime is answering a message."
      />
      <Active
        title="Queued"
        serverId={data.serverId}
        turns={data.queued}
        csrf={props.csrf}
        empty="No turn waits."
      />
      <h2>Recently ended</h2>
      {data.ended.length === 0 ? (
        <p class="mute">No turn has ended yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Turn</th>
                <th>Agent</th>
                <th>Target</th>
                <th>State</th>
                <th>Error</th>
                <th class="num wide">Exit</th>
                <th class="wide">Replied</th>
                <th class="num">Took</th>
                <th class="wide">Ended</th>
              </tr>
            </thead>
            <tbody>
              {data.ended.map((t) => (
                <tr data-turn={t.id} data-state={t.state}>
                  <td class="mono">
                    <a href={turnHref(data.serverId, t.id)}>{t.id}</a>
                  </td>
                  <td>{t.agentId}</td>
                  <td class="mono">{t.target}</td>
                  <td class={stateClass(t)}>{t.state}</td>
                  <td>{t.error ?? '—'}</td>
                  <td class="num wide">{t.exitStatus ?? '—'}</td>
                  <td class="wide">{t.replied === null ? '—' : t.replied ? 'yes' : 'no'}</td>
                  <td class="num">{took(t)}</td>
                  <td class="mono wide">{t.finishedAt ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** One turn: its record, a cancel button while it waits or runs, and the calls its runtime made. */
export function TurnDetailBody(props: { data: TurnDetailData; csrf: string }) {
  const { turn: t, serverId, calls } = props.data;
  if (!t)
    return (
      <>
        <h1>No such turn</h1>
        <p>
          <a href="/console/turns">Turns</a>
        </p>
      </>
    );
  const active = t.state === 'queued' || t.state === 'running';
  return (
    <>
      <h1>
        Turn <span class="mono">{t.id}</span>
      </h1>
      <p>
        <a href="/console/turns">All turns</a>
      </p>
      <dl class="detail" data-turn={t.id} data-state={t.state}>
        <dt>Agent</dt>
        <dd>{t.agentId}</dd>
        <dt>Target</dt>
        <dd class="mono">{t.target}</dd>
        <dt>State</dt>
        <dd class={active ? undefined : stateClass(t)}>
          {t.state}
          {t.error ? ` (${t.error})` : ''}
        </dd>
        <dt>Messages</dt>
        <dd class="mono">{t.messageIds.join(', ')}</dd>
        <dt>Queued</dt>
        <dd class="mono">{t.createdAt}</dd>
        <dt>Started</dt>
        <dd class="mono">{t.startedAt ?? '—'}</dd>
        <dt>Ended</dt>
        <dd class="mono">
          {t.finishedAt ?? (active ? <Since at={t.startedAt ?? t.createdAt} /> : '—')}
        </dd>
        <dt>Exit status</dt>
        <dd>{t.exitStatus ?? '—'}</dd>
        <dt>Replied</dt>
        <dd>{t.replied === null ? '—' : t.replied ? 'yes' : 'no'}</dd>
        <dt>Session</dt>
        <dd class="mono">
          {t.sessionId ?? '—'}
          {t.resumed ? ' (resumed)' : ''}
        </dd>
        {t.retryOf ? (
          <>
            <dt>Retry of</dt>
            <dd class="mono">
              <a href={turnHref(serverId, t.retryOf)}>{t.retryOf}</a>
            </dd>
          </>
        ) : null}
      </dl>
      {active ? (
        <p>
          <CancelForm
            serverId={serverId}
            turn={t}
            csrf={props.csrf}
            back={turnHref(serverId, t.id)}
          />
        </p>
      ) : null}
      <h2>
        Tool calls <span class="mute">({calls.length})</span>
      </h2>
      {calls.length === 0 ? (
        <p class="mute">No call recorded in this turn.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Tool</th>
                <th>Outcome</th>
                <th class="num">ms</th>
                <th class="wide">Via</th>
              </tr>
            </thead>
            <tbody>
              {calls.map((e) => (
                <tr data-seq={String(e.seq)} data-tool={e.tool}>
                  <td class="mono">
                    <a href={`/console/activity/${e.seq}`}>{e.at}</a>
                  </td>
                  <td class="mono">{e.tool}</td>
                  <td class={e.outcome === 'ok' ? 'ok' : 'bad'}>{e.outcome}</td>
                  <td class="num">{e.durationMs.toFixed(1)}</td>
                  <td class="wide">
                    {e.via}
                    {e.transport !== e.via ? `/${e.transport}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {props.data.moreCalls ? (
        <p class="mute">
          The newest {calls.length} calls; <code>agentteam audit --turn {t.id}</code> lists them
          all.
        </p>
      ) : null}
    </>
  );
}
