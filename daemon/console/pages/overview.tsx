import type { AuditSummaryRow } from '../../../catalog/audit.js';
import type { NeedsYouData } from '../needs-you-read.js';
import { NeedsYou } from './needs-you.js';

interface Minute {
  readonly calls: number;
  readonly errors: number;
}

/** A bar chart as server-drawn SVG (no script, no inline style). */
function MinuteChart(props: { minutes: readonly Minute[] }) {
  const max = Math.max(1, ...props.minutes.map((m) => m.calls));
  const W = 600,
    H = 120,
    bw = W / 60;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${W} ${H + 16}`}
      role="img"
      aria-label="Calls (blue) and errors (red) per minute over the last hour"
    >
      {props.minutes.map((m, i) => {
        const h = (m.calls / max) * H,
          eh = (m.errors / max) * H;
        return (
          <>
            <rect
              class="calls"
              x={String(i * bw + 1)}
              y={String(H - h)}
              width={String(bw - 2)}
              height={String(h)}
            >
              <title>{`${59 - i} min ago: ${m.calls} calls, ${m.errors} errors`}</title>
            </rect>
            <rect
              class="errors"
              x={String(i * bw + 1)}
              y={String(H - eh)}
              width={String(bw - 2)}
              height={String(eh)}
            />
          </>
        );
      })}
      <text x="0" y={String(H + 12)}>
        60 min ago
      </text>
      <text x={String(W - 30)} y={String(H + 12)}>
        now
      </text>
      <text x="4" y="10">{`max ${max}/min`}</text>
    </svg>
  );
}

/** The fields of `/api/v1/status` the overview shows; each is printed as found, so none is required. */
interface StatusFields {
  readonly pid?: unknown;
  readonly uptimeMs?: unknown;
  readonly store?: { readonly kind?: unknown };
  readonly connections?: { readonly open?: unknown; readonly max?: unknown };
  readonly active?: unknown;
  readonly inFlight?: unknown;
}

/**
 * Overview: first what needs the person (approvals to decide, failed turns,
 * unanswered messages), then the daemon's status (as `daemon status` prints
 * it), the last hour's chart and the slowest tools by p95 (audit summary).
 */
export function OverviewBody(props: {
  needs: NeedsYouData;
  csrf: string;
  status: StatusFields;
  minutes: readonly Minute[];
  slowest: readonly AuditSummaryRow[];
  since: string;
  hourCalls: number;
  hourErrors: number;
}) {
  const s = props.status;
  const cards: [string, string][] = [
    ['Daemon pid', String(s.pid)],
    ['Uptime', `${Math.round(Number(s.uptimeMs) / 1000)} s`],
    ['Store', String(s.store?.kind ?? s.store ?? '—')],
    ['Connections', `${s.connections?.open ?? 0} / ${s.connections?.max ?? '?'}`],
    ['Runtimes active', String(s.active ?? 0)],
    ['In flight', String(s.inFlight ?? 0)],
    ['Calls, last hour', String(props.hourCalls)],
    [
      'Error rate, last hour',
      props.hourCalls ? `${((100 * props.hourErrors) / props.hourCalls).toFixed(1)} %` : '—',
    ],
  ];
  return (
    <>
      <h1>Overview</h1>
      <NeedsYou data={props.needs} csrf={props.csrf} />
      <h2>Daemon</h2>
      <div class="cards">
        {cards.map(([k, v]) => (
          <div class="card" data-stat={k}>
            <span class="mute">{k}</span>
            <b>{v}</b>
          </div>
        ))}
      </div>
      <h2>Calls per minute, last hour</h2>
      <MinuteChart minutes={props.minutes} />
      <h2>Slowest tools (p95, since {props.since})</h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>Tool</th>
              <th class="num">Calls</th>
              <th class="num">Errors</th>
              <th class="num">p50 ms</th>
              <th class="num">p95 ms</th>
            </tr>
          </thead>
          <tbody>
            {props.slowest.map((r) => (
              <tr>
                <td class="mono">{r.key}</td>
                <td class="num">{r.calls}</td>
                <td class="num">{r.errors}</td>
                <td class="num">{r.p50Ms.toFixed(1)}</td>
                <td class="num">{r.p95Ms.toFixed(1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
