import type { Context, Hono } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import type { Clock } from '../../lib/clock.js';
import { CLIENT_JS, CSS } from './assets.js';
import { COOKIE, consoleHeaders, fromConsolePage, onlyAt, sessionGuard } from './guard.js';
import { Layout, type PageId } from './layout.js';
import { LivePages } from './live.js';
import type { ConsoleOperator } from './operator-client.js';
import { pageBodies, type Body, type ConsoleEnv } from './page-bodies.js';
import { registerConsoleActions } from './actions.js';
import { SESSION_TTL_MS, type ConsoleSessions } from './sessions.js';
import { ActivityDetail } from './pages/activity.js';
import { registerConversations } from './conversation-routes.js';
import { taskPageBodies } from './task-bodies.js';

export interface ConsoleDeps {
  readonly sessions: ConsoleSessions;
  readonly operator: ConsoleOperator;
  readonly clock: Clock;
  /** The server the CLI's commands use when none is given; its approvals are listed even with no runtime on it. */
  readonly defaultServer: string;
  /** `<name>.localhost:PORT`: the one Host the console answers under. */
  readonly host: () => string;
}

const OPEN = new Set([
  '/console/login',
  '/console/assets/console.js',
  '/console/assets/console.css',
]);
type Env = ConsoleEnv;
const render = async (el: unknown): Promise<string> =>
  String(await (el as { toString(): string | Promise<string> }).toString());
/** A whole page: standards mode needs the doctype, which JSX cannot write. */
const page = async (c: Context, el: unknown, status = 200) =>
  c.html(`<!doctype html>${await render(el)}`, status as 200);

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

  const {
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
  } = pageBodies(op, d);
  const { conversations, conversation } = registerConversations(app, op, d, page);
  const tasks = taskPageBodies(op, d.defaultServer);
  const live: Record<string, { title: string; page: PageId; body: Body; still?: true }> = {
    overview: { title: 'Overview', page: 'overview', body: overview },
    conversations: { title: 'Conversations', page: 'conversations', body: conversations },
    // One conversation (`?server=&target=`): its replies and turn states arrive live.
    conversation: { title: 'Conversation', page: 'conversations', body: conversation },
    turns: { title: 'Turns', page: 'turns', body: turns },
    // One turn's detail (`?server=&id=`): live too, so its calls appear while it runs.
    turn: { title: 'Turn', page: 'turns', body: turn },
    runtimes: { title: 'Runtimes', page: 'runtimes', body: runtimes },
    tasks: { title: 'Tasks', page: 'tasks', body: tasks.tasks },
    // A task and the new-task forms: not live, so what a person types into their forms is never redrawn.
    task: { title: 'Task', page: 'tasks', body: tasks.task, still: true },
    'tasks/new': { title: 'New task', page: 'tasks', body: tasks.newTask, still: true },
    activity: { title: 'Activity', page: 'activity', body: activity },
    approvals: { title: 'Approvals', page: 'approvals', body: approvals },
    'client-tools': { title: 'Client tools', page: 'client-tools', body: clientTools },
    tools: { title: 'Declared tools', page: 'tools', body: declared },
    // Not live: the surface changes only on reload, and counting it for five runtimes every round would be waste.
    'context-cost': { title: 'Context cost', page: 'context-cost', body: contextCost, still: true },
    devices: { title: 'Devices', page: 'devices', body: devices },
  };
  for (const [id, p] of Object.entries(live)) {
    app.get(id === 'overview' ? '/console/' : `/console/${id}`, async (c) => {
      const q = new URL(c.req.url).search;
      // An older page (Activity, Conversations, a conversation's history) stays as it is; the newest page and every other page update live.
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
        ? (await op.call('audit.list', { query: { after: String(seq - 1), limit: '1' } })).entries
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

  registerConsoleActions(app, op, page);
}
