import type { Context, Hono } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import type { Clock } from '../../lib/clock.js';
import type { AuditEntry, AuditSummaryRow } from '../../catalog/audit.js';
import { CLIENT_JS, CSS } from './assets.js';
import { COOKIE, consoleHeaders, fromConsolePage, onlyAt, sessionGuard } from './guard.js';
import { Layout, type PageId } from './layout.js';
import { LivePages } from './live.js';
import { OperatorCallError, type OperatorClient } from './operator-client.js';
import { SESSION_TTL_MS, type ConsoleSession, type ConsoleSessions } from './sessions.js';
import {
  ActivityBody,
  ActivityDetail,
  filterQuery,
  type ActivityFilter,
} from './pages/activity.js';
import { ApprovalsBody, olderHref } from './pages/approvals.js';
import { readApprovals } from './approvals-read.js';
import { OverviewBody } from './pages/overview.js';
import { RuntimesBody } from './pages/runtimes.js';
import { DeclaredBody, type DeclaredData } from './pages/declared.js';
import { ClientToolsBody, type ClientToolsData } from './pages/client-tools.js';
import { ContextCostBody } from './pages/context-cost.js';
import { RUNTIME_KINDS } from '../../catalog/runtimes.js';
import { ANALYSIS_PATH } from '../http/paths.js';
// The pure report builder `agentteam token analyze` uses, so the page's numbers are the command's (it imports nothing else).
import { buildReport, type Report, type SurfaceInput } from '../../lib/token-report.js';
import type { RuntimeView } from '../operator/runtime-list.js';

export interface ConsoleDeps {
  readonly sessions: ConsoleSessions;
  readonly operator: OperatorClient;
  readonly clock: Clock;
  /** The server the CLI's commands use when none is given; its approvals are listed even with no runtime on it. */
  readonly defaultServer: string;
  /** `<name>.localhost:PORT`: the one Host the console answers under. */
  readonly host: () => string;
}

/** As `agentteam token analyze` names it. */
const TOKENIZER = 'o200k_base (gpt-tokenizer)';
const OPEN = new Set([
  '/console/login',
  '/console/assets/console.js',
  '/console/assets/console.css',
]);
type Env = { Variables: { session: ConsoleSession } };
const render = async (el: unknown): Promise<string> =>
  String(await (el as { toString(): string | Promise<string> }).toString());
/** A whole page: standards mode needs the doctype, which JSX cannot write. */
const page = async (c: Context, el: unknown, status = 200) =>
  c.html(`<!doctype html>${await render(el)}`, status as 200);

/** The body of one live page: what both the page and its SSE stream render. */
type Body = (c: Context<Env>) => Promise<JSX.Element>;

export function registerConsoleRoutes(app: Hono<Env>, d: ConsoleDeps): void {
  const op = d.operator;
  const livePages = new LivePages(d.clock);

  app.use('/console/*', consoleHeaders());
  app.use('/console', consoleHeaders());
  app.use('/console/*', onlyAt(d.host));
  app.use('/console', onlyAt(d.host));
  app.use(
    '/console/*',
    sessionGuard(d.sessions, d.host, (p) => OPEN.has(p) || p === '/console'),
  );
  app.get('/console', async (c, next) =>
    c.req.path === '/console' ? c.redirect('/console/', 303) : next(),
  );
  app.get('/console/assets/console.js', (c) =>
    c.body(CLIENT_JS, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
  app.get('/console/assets/console.css', (c) =>
    c.body(CSS, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache' }),
  );

  app.get('/console/login', (c) => {
    const code = c.req.query('code') ?? '';
    return page(
      c,
      <Layout page="login" title="Sign in">
        <h1>Sign in</h1>
        <form method="post" action="/console/login" data-autosubmit={code ? '' : undefined}>
          <label>
            One-time code <input name="code" value={code} autocomplete="off" required />
          </label>{' '}
          <button type="submit">Sign in</button>
        </form>
        <p class="mute">
          Codes come from <code>agentteam console</code>; each works once, within 60 seconds.
        </p>
      </Layout>,
    );
  });
  app.post('/console/login', async (c) => {
    if (!fromConsolePage(c, d.host))
      return page(
        c,
        <Layout page="login" title="Refused">
          <p>Refused: sign-in must come from the console page.</p>
        </Layout>,
        403,
      );
    const form = await c.req.parseBody();
    const got = typeof form.code === 'string' ? d.sessions.exchange(form.code) : null;
    if (!got)
      return page(
        c,
        <Layout page="login" title="Refused">
          <h1>Sign-in refused</h1>
          <p>
            This code has expired or was already used. Run <code>agentteam console</code> for a new
            one.
          </p>
        </Layout>,
        403,
      );
    setCookie(c, COOKIE, got.sessionId, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/console',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    return c.redirect('/console/', 303);
  });
  app.post('/console/logout', (c) => {
    d.sessions.end(getCookie(c, COOKIE));
    deleteCookie(c, COOKIE, { path: '/console' });
    return c.redirect('/console/login', 303);
  });

  // --- pages --------------------------------------------------------------
  const runtimes = async (c: Context<Env>) => (
    <RuntimesBody
      runtimes={(await op.get<{ runtimes: RuntimeView[] }>('/api/v1/runtimes')).runtimes}
      csrf={c.get('session').csrf}
    />
  );

  const activityFilter = (c: Context): ActivityFilter => ({
    agent: c.req.query('agent') || undefined,
    tool: c.req.query('tool') || undefined,
    outcome: c.req.query('outcome') || undefined,
    cursor: c.req.query('cursor') || undefined,
  });
  const activity = async (c: Context<Env>) => {
    const f = activityFilter(c);
    try {
      const page = await op.get<{ entries: AuditEntry[]; nextCursor?: string | null }>(
        `/api/v1/audit${filterQuery(f, { limit: '50' })}`,
      );
      return (
        <ActivityBody filter={f} entries={page.entries} nextCursor={page.nextCursor ?? null} />
      );
    } catch (err) {
      if (err instanceof OperatorCallError && err.status < 500)
        return <ActivityBody filter={f} entries={[]} error={err.message} />;
      throw err;
    }
  };

  const approvals = async (c: Context<Env>) => {
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

  const overview = async () => {
    const status = await op.get<Record<string, unknown>>('/api/v1/status');
    const hour = await op.get<{ since: string; byTool: AuditSummaryRow[] }>(
      '/api/v1/audit/summary?since=1h',
    );
    const { minutes } = await op.get<{
      minutes: { minute: string; calls: number; errors: number }[];
    }>('/api/v1/audit/minutes?since=1h');
    const calls = hour.byTool.reduce((n, r) => n + r.calls, 0),
      errors = hour.byTool.reduce((n, r) => n + r.errors, 0);
    const slowest = [...hour.byTool].sort((a, b) => b.p95Ms - a.p95Ms).slice(0, 10);
    return (
      <OverviewBody
        status={status}
        minutes={minutesOf(minutes, d.clock.now())}
        slowest={slowest}
        since={hour.since}
        hourCalls={calls}
        hourErrors={errors}
      />
    );
  };

  const declared = async (c: Context<Env>) => {
    const { declarations } = await op.get<Pick<DeclaredData, 'declarations'>>('/api/v1/tools');
    const log = await op.get<Omit<DeclaredData, 'declarations'>>('/api/v1/tools/log?limit=500');
    return <DeclaredBody data={{ declarations, ...log }} csrf={c.get('session').csrf} />;
  };

  const clientTools = async () => {
    const status = await op.get<{ clientTools: ClientToolsData['counts'] }>('/api/v1/status');
    const offered =
      await op.get<Pick<ClientToolsData, 'revision' | 'tools'>>('/api/v1/client-tools');
    const { requests } = await op.get<Pick<ClientToolsData, 'requests'>>(
      '/api/v1/client-tools/requests',
    );
    const { clients } = await op.get<Pick<ClientToolsData, 'clients'>>(
      '/api/v1/client-tools/clients',
    );
    return <ClientToolsBody data={{ counts: status.clientTools, ...offered, requests, clients }} />;
  };

  // Context cost: the same surface texts, tokenizer and report builder as `token analyze`; the tokenizer tables load on first use.
  const contextCost = async () => {
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    const count = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
    const reports: Report[] = [];
    for (const kind of RUNTIME_KINDS) {
      const { token } = await op.post<{ token: string }>(
        '/api/v1/token-analysis/credentials',
        undefined,
      );
      const surface = await op.getAs<SurfaceInput>(`${ANALYSIS_PATH}?runtime=${kind}`, token);
      reports.push(buildReport(surface, count, TOKENIZER));
    }
    return <ContextCostBody reports={reports} />;
  };

  const live: Record<string, { title: string; page: PageId; body: Body; still?: true }> = {
    overview: { title: 'Overview', page: 'overview', body: overview },
    runtimes: { title: 'Runtimes', page: 'runtimes', body: runtimes },
    activity: { title: 'Activity', page: 'activity', body: activity },
    approvals: { title: 'Approvals', page: 'approvals', body: approvals },
    'client-tools': { title: 'Client tools', page: 'client-tools', body: clientTools },
    tools: { title: 'Declared tools', page: 'tools', body: declared },
    // Not live: the surface changes only on reload, and counting it for five runtimes every round would be waste.
    'context-cost': { title: 'Context cost', page: 'context-cost', body: contextCost, still: true },
  };
  for (const [id, p] of Object.entries(live)) {
    app.get(id === 'overview' ? '/console/' : `/console/${id}`, async (c) => {
      const q = new URL(c.req.url).search;
      // An older page of Activity stays as it is; the newest page and every other page update live.
      const liveUrl = c.req.query('cursor') || p.still ? undefined : `/console/live/${id}${q}`;
      return page(
        c,
        <Layout page={p.page} title={p.title} live={liveUrl}>
          {await p.body(c as Context<Env>)}
        </Layout>,
      );
    });
    if (p.still) continue;
    app.get(`/console/live/${id}`, (c) => {
      const sid = getCookie(c, COOKIE);
      // Tabs of one session on the same page and query see the same body; the session's CSRF token is its only personal part.
      const key = JSON.stringify([id, new URL(c.req.url).search, c.get('session').csrf]);
      return livePages.body(
        c,
        key,
        async () => render(await p.body(c as Context<Env>)),
        () => d.sessions.lookup(sid) !== null,
      );
    });
  }

  app.get('/console/activity/:seq{[0-9]{1,15}}', async (c) => {
    const seq = Number(c.req.param('seq'));
    const rows =
      seq > 0
        ? (await op.get<{ entries: AuditEntry[] }>(`/api/v1/audit?after=${seq - 1}&limit=1`))
            .entries
        : [];
    const entry = rows[0]?.seq === seq ? rows[0] : null;
    return page(
      c,
      <Layout page="detail" title={`Call ${seq}`}>
        <ActivityDetail entry={entry} seq={seq} />
      </Layout>,
      entry ? 200 : 404,
    );
  });

  // --- actions (session, Origin and CSRF checked by the guard) -----------
  const act = async (c: Context, back: string, run: () => Promise<unknown>) => {
    try {
      await run();
      return c.redirect(back, 303);
    } catch (err) {
      if (!(err instanceof OperatorCallError)) throw err;
      return page(
        c,
        <Layout page="detail" title="Refused">
          <h1>Refused</h1>
          <p role="alert" class="bad">
            {err.code}: {err.message}
          </p>
          <p>
            <a href={back}>Back</a>
          </p>
        </Layout>,
        err.status as 400,
      );
    }
  };
  app.post('/console/runtimes/:id/revoke', (c) =>
    act(c, '/console/runtimes', () =>
      op.del(`/api/v1/runtimes/${encodeURIComponent(c.req.param('id'))}`),
    ),
  );
  app.post('/console/approvals/:id/decide', async (c) => {
    const form = await c.req.parseBody();
    const note = typeof form.note === 'string' && form.note.trim() !== '' ? form.note : undefined;
    const decision =
      form.decision === 'approve'
        ? 'approve'
        : form.decision === 'reject'
          ? 'reject'
          : String(form.decision ?? '');
    return act(c, backTo(form.back), () =>
      op.post(`/api/v1/approvals/${encodeURIComponent(c.req.param('id'))}/decide`, {
        decision,
        ...(note ? { note } : {}),
        decidedBy: 'human:operator',
      }),
    );
  });
  app.post('/console/tools/asks/:id/answer', async (c) => {
    const form = await c.req.parseBody();
    const answer = typeof form.answer === 'string' ? form.answer : '';
    return act(c, '/console/tools', () =>
      op.post(`/api/v1/tools/asks/${encodeURIComponent(c.req.param('id'))}/answer`, { answer }),
    );
  });
}

/** Where a decision returns: the older page it came from (a link of the page's own form), else the newest. */
function backTo(back: unknown): string {
  return typeof back === 'string' &&
    /^\/console\/approvals\?server=[\w.%-]+&cursor=[\w.%-]+$/.test(back)
    ? back
    : '/console/approvals';
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
