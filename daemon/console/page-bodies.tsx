import type { Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { RUNTIME_KINDS } from '../../catalog/runtimes.js';
import { OperatorCallError } from '../../lib/operator-client.js';
// The pure report builder `agentteam token analyze` uses, so the page's numbers are the command's (it imports nothing else).
import { buildReport, type Report, type SurfaceInput } from '../../lib/token-report.js';
import type { Clock } from '../../lib/clock.js';
import { ANALYSIS_PATH } from '../http/paths.js';
import { readApprovals } from './approvals-read.js';
import { readNeedsYou } from './needs-you-read.js';
import type { ConsoleOperator } from './operator-client.js';
import { ActivityBody, type ActivityFilter } from './pages/activity.js';
import { ApprovalsBody, olderHref } from './pages/approvals.js';
import { ClientToolsBody, type ClientToolsData } from './pages/client-tools.js';
import { ContextCostBody } from './pages/context-cost.js';
import { DeclaredBody } from './pages/declared.js';
import { OverviewBody } from './pages/overview.js';
import { RuntimesBody } from './pages/runtimes.js';
import { DevicesBody } from './pages/devices.js';
import { TurnDetailBody, TurnsBody } from './pages/turns.js';
import { readTurnDetail, readTurns } from './turns-read.js';
import type { ConsoleSession } from './sessions.js';

/** As `agentteam token analyze` names it. */
const TOKENIZER = 'o200k_base (gpt-tokenizer)';

/** A console route's context: the session the guard found. */
export type ConsoleEnv = { Variables: { session: ConsoleSession } };
type Env = ConsoleEnv;

/** The body of one live page: what both the page and its SSE stream render. */
export type Body = (c: Context<Env>) => Promise<JSX.Element>;

/**
 * What each console page reads from the operator API (through the typed
 * client, so a page that stops matching a row's schema fails the type check)
 * and renders.
 */
export function pageBodies(
  op: ConsoleOperator,
  d: { readonly clock: Clock; readonly defaultServer: string },
): Record<
  | 'overview'
  | 'turns'
  | 'turn'
  | 'runtimes'
  | 'activity'
  | 'approvals'
  | 'clientTools'
  | 'declared'
  | 'contextCost'
  | 'devices',
  Body
> {
  // Turns are kept per server; the page shows the one in `server`, else the default server (where `message post` writes).
  const serverOf = (c: Context) => {
    const s = c.req.query('server');
    return s && /^[a-z0-9][a-z0-9_-]{0,63}$/i.test(s) ? s : d.defaultServer;
  };
  const turns: Body = async (c) => (
    <TurnsBody data={await readTurns(op, serverOf(c))} csrf={c.get('session').csrf} />
  );
  const turn: Body = async (c) => (
    <TurnDetailBody
      data={await readTurnDetail(op, serverOf(c), c.req.query('id') ?? '')}
      csrf={c.get('session').csrf}
    />
  );

  const runtimes: Body = async (c) => (
    <RuntimesBody
      runtimes={(await op.call('runtimes.list', {})).runtimes}
      csrf={c.get('session').csrf}
    />
  );

  const devices: Body = async (c) => (
    <DevicesBody
      devices={(await op.call('devices.list', {})).devices}
      csrf={c.get('session').csrf}
    />
  );

  const activityFilter = (c: Context): ActivityFilter => ({
    agent: c.req.query('agent') || undefined,
    tool: c.req.query('tool') || undefined,
    outcome: c.req.query('outcome') || undefined,
    cursor: c.req.query('cursor') || undefined,
  });
  const activity: Body = async (c) => {
    const f = activityFilter(c);
    try {
      const page = await op.call('audit.list', { query: { ...f, limit: '50' } });
      return (
        <ActivityBody filter={f} entries={page.entries} nextCursor={page.nextCursor ?? null} />
      );
    } catch (err) {
      if (err instanceof OperatorCallError && err.status < 500)
        return <ActivityBody filter={f} entries={[]} error={err.message} />;
      throw err;
    }
  };

  const approvals: Body = async (c) => {
    const server = c.req.query('server') || undefined,
      cursor = c.req.query('cursor') || undefined;
    const data = await readApprovals(op, d.defaultServer, {
      ...(server ? { server } : {}),
      ...(cursor ? { cursor } : {}),
    });
    // On an older page a decision comes back to that page, not to the newest.
    const back = server && cursor ? olderHref(server, cursor) : undefined;
    return <ApprovalsBody data={data} csrf={c.get('session').csrf} {...(back ? { back } : {})} />;
  };

  const overview: Body = async (c) => {
    const needs = await readNeedsYou(op, serverOf(c));
    const status = await op.call('daemon.status', {});
    const hour = await op.call('audit.summary', { query: { since: '1h' } });
    const { minutes } = await op.call('audit.minutes', { query: { since: '1h' } });
    const calls = hour.byTool.reduce((n, r) => n + r.calls, 0),
      errors = hour.byTool.reduce((n, r) => n + r.errors, 0);
    const slowest = [...hour.byTool].sort((a, b) => b.p95Ms - a.p95Ms).slice(0, 10);
    return (
      <OverviewBody
        needs={needs}
        csrf={c.get('session').csrf}
        status={status}
        minutes={minutesOf(minutes, d.clock.now())}
        slowest={slowest}
        since={hour.since}
        hourCalls={calls}
        hourErrors={errors}
      />
    );
  };

  const declared: Body = async (c) => {
    const { declarations } = await op.call('tools.list', {});
    const log = await op.call('tools.log', { query: { limit: '500' } });
    return <DeclaredBody data={{ declarations, ...log }} csrf={c.get('session').csrf} />;
  };

  const clientTools: Body = async () => {
    const status = await op.call('daemon.status', {});
    const offered = await op.call('clientTools.offered', {});
    const { requests } = await op.call('clientTools.requests', { query: {} });
    const { clients } = await op.call('clientTools.clients', {});
    const { sessions: scopes } = await op.call('clientTools.scopes', { query: {} });
    const data = {
      counts: status.clientTools,
      ...offered,
      requests,
      clients,
      scopes,
    } as ClientToolsData;
    return <ClientToolsBody data={data} />;
  };

  // Context cost: the same surface texts, tokenizer and report builder as `token analyze`; the tokenizer tables load on first use.
  const contextCost: Body = async () => {
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    const count = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
    const reports: Report[] = [];
    for (const kind of RUNTIME_KINDS) {
      const { token } = await op.call('analysis.credential', {});
      const surface = await op.getAs<SurfaceInput>(`${ANALYSIS_PATH}?runtime=${kind}`, token);
      reports.push(buildReport(surface, count, TOKENIZER));
    }
    return <ContextCostBody reports={reports} />;
  };

  return {
    overview,
    turns,
    turn,
    runtimes,
    activity,
    approvals,
    clientTools,
    declared,
    contextCost,
    devices,
  };
}

/** The summary's per-minute counts placed on the last hour's 60 slots (index 59 is the current minute). */
function minutesOf(
  rows: readonly { minute: string; calls: number; errors: number }[],
  now: number,
) {
  const out = Array.from({ length: 60 }, () => ({ calls: 0, errors: 0 }));
  for (const r of rows) {
    const ago = Math.floor(now / 60_000) - Math.floor(Date.parse(r.minute) / 60_000);
    if (ago >= 0 && ago < 60) out[59 - ago] = { calls: r.calls, errors: r.errors };
  }
  return out;
}
