import type { AuditEntry } from '../../../catalog/audit.js';

export interface ActivityFilter {
  readonly agent?: string | undefined;
  readonly tool?: string | undefined;
  readonly outcome?: string | undefined;
  readonly cursor?: string | undefined;
}

/** The query string of a filter (what /console/activity and GET /api/v1/audit both take). */
function filterQuery(f: ActivityFilter, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const k of ['agent', 'tool', 'outcome', 'cursor'] as const) if (f[k]) q.set(k, f[k]!);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Activity: one page of the audit trail, newest first (GET /api/v1/audit), with filters and a link further back. */
export function ActivityBody(props: {
  filter: ActivityFilter;
  entries: readonly AuditEntry[];
  nextCursor?: string | null;
  error?: string;
}) {
  const f = props.filter;
  return (
    <>
      <h1>Activity</h1>
      {/* biome-ignore lint/a11y/useSemanticElements: a <search> wrapper would change the page's markup; the role says the same */}
      <form class="filters" method="get" action="/console/activity" role="search">
        <label>
          Agent
          <input name="agent" value={f.agent ?? ''} size={14} />
        </label>
        <label>
          Tool
          <input name="tool" value={f.tool ?? ''} size={18} />
        </label>
        <label>
          Outcome
          <input
            name="outcome"
            value={f.outcome ?? ''}
            size={14}
            placeholder="ok or an error code"
          />
        </label>
        <button type="submit">Filter</button>
        <a href="/console/activity">Clear</a>
      </form>
      {props.error ? (
        <p class="bad" role="alert">
          {props.error}
        </p>
      ) : null}
      {f.cursor ? (
        <p class="mute">
          An older page: it does not update live.{' '}
          <a href={`/console/activity${filterQuery({ ...f, cursor: undefined })}`}>Newest</a>
        </p>
      ) : null}
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>Time</th>
              <th>Agent</th>
              <th>Tool</th>
              <th>Outcome</th>
              <th class="num">ms</th>
              <th class="num wide">Bytes in/out</th>
              <th class="wide">Server</th>
            </tr>
          </thead>
          <tbody>
            {props.entries.map((e) => (
              <tr data-seq={String(e.seq)}>
                <td class="mono">
                  <a href={`/console/activity/${e.seq}`}>{e.at}</a>
                </td>
                <td>{e.agentId}</td>
                <td class="mono">{e.tool}</td>
                <td class={e.outcome === 'ok' ? 'ok' : 'bad'}>{e.outcome}</td>
                <td class="num">{e.durationMs.toFixed(1)}</td>
                <td class="num wide">
                  {e.requestBytes} / {e.resultBytes}
                </td>
                <td class="wide">{e.serverId}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {props.entries.length === 0 ? (
        <p class="mute">
          No calls recorded{f.agent || f.tool || f.outcome ? ' for this filter' : ''}.
        </p>
      ) : null}
      {props.nextCursor ? (
        <p>
          <a
            rel="next"
            href={`/console/activity${filterQuery({ ...f, cursor: props.nextCursor })}`}
          >
            Older calls →
          </a>
        </p>
      ) : null}
    </>
  );
}

/** One call in full: the audit row as recorded (masked arguments and result only when recording them is on). */
export function ActivityDetail(props: { entry: AuditEntry | null; seq: number }) {
  const e = props.entry;
  if (!e)
    return (
      <>
        <h1>Call {props.seq}</h1>
        <p class="mute">No such call: it was never recorded or retention has trimmed it.</p>
        <p>
          <a href="/console/activity">Back to Activity</a>
        </p>
      </>
    );
  const rows: [string, string][] = [
    ['Seq', String(e.seq)],
    ['Time', e.at],
    ['Server', e.serverId],
    ['Agent', e.agentId],
    ['Tool', e.tool],
    ['Outcome', e.outcome],
    ['Duration', `${e.durationMs} ms`],
    ['Request bytes', String(e.requestBytes)],
    ['Result bytes', String(e.resultBytes)],
    ['Trace id', e.traceId ?? '—'],
    ['Via', `${e.via} over ${e.transport}`],
    ['Runtime', e.runtime],
    ['Authorization', e.authorizationId],
    ['Generation', e.generationId],
    ['Thread', e.threadId ?? '—'],
  ];
  return (
    <>
      <h1>
        Call {e.seq}: <code>{e.tool}</code>
      </h1>
      <dl class="detail">
        {rows.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd class="mono">{v}</dd>
          </>
        ))}
      </dl>
      {e.turnId !== null ? (
        <p data-turn={e.turnId}>
          Made in the turn{' '}
          <a
            class="mono"
            href={`/console/turn?${new URLSearchParams({ server: e.serverId, id: e.turnId })}`}
          >
            {e.turnId}
          </a>
          .
        </p>
      ) : null}
      <h2>Arguments</h2>
      {e.args !== undefined ? (
        <pre>{e.args}</pre>
      ) : (
        <p class="mute">Not recorded (argument recording is off).</p>
      )}
      {e.result !== undefined ? (
        <>
          <h2>Result</h2>
          <pre>{e.result}</pre>
        </>
      ) : null}
      <p>
        <a href="/console/activity">Back to Activity</a>
      </p>
    </>
  );
}
