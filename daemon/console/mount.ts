import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { Clock } from '../../lib/clock.js';
import type { ConsoleOperator } from './operator-client.js';
import { ConsoleSessions } from './sessions.js';
import type { RuntimeEnv } from '../auth/principal.js';
import type { ConsoleEnv } from './page-bodies.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';

interface MountOptions {
  readonly clock: Clock;
  readonly operator: ConsoleOperator;
  readonly defaultServer: string;
  /** `<name>.localhost:PORT`, the one Host the console answers under (consoleHostName). */
  readonly host: () => string;
}

/**
 * Puts the console on the daemon's app and answers the sign-in code row of
 * the operator API. Only a forwarder is registered at start: the pages (JSX rendering, assets) are
 * imported on the first /console request, so a daemon nobody opens the
 * console on never loads them, and start-up opens no more module files at
 * once than before (a daemon started under a 128-descriptor limit must
 * still come up).
 */
export function mountConsole(
  app: Hono<RuntimeEnv>,
  opts: MountOptions,
): Pick<OperatorHandlers, 'console.code'> {
  const sessions = new ConsoleSessions(opts.clock);
  let pages: Promise<Hono<ConsoleEnv>> | null = null;
  const load = () =>
    (pages ??= import('./routes.js').then((m) => {
      const sub = new Hono<ConsoleEnv>();
      m.registerConsoleRoutes(sub, { sessions, ...opts });
      return sub;
    }));
  const forward = async (c: { req: { raw: Request } }) => (await load()).fetch(c.req.raw);
  app.all('/console', forward);
  app.all('/console/*', forward);
  return {
    // The CLI's half of sign-in: the operator token buys a one-time code (under /api/v1, so the bearer check applies).
    'console.code': () => {
      const { code, expiresAtMs } = sessions.issueCode();
      // The whole link: the console's host name is given out only here, to a holder of the operator token.
      const url = `http://${opts.host()}/console/login?code=${encodeURIComponent(code)}`;
      return { url, expiresAt: new Date(expiresAtMs).toISOString() };
    },
  };
}

/**
 * Where the console answers. Browsers keep cookies per host name, not per
 * port, so a session cookie set on 127.0.0.1 would go to every server on
 * 127.0.0.1. The console therefore lives under a name of its own,
 * `agentteam-<128 random bits>.localhost:PORT`: Chromium and Firefox resolve
 * every `*.localhost` name to loopback without asking DNS, and the browser
 * sends the cookie only to that exact name. The name is drawn at each start
 * and handed out only with a sign-in code (operator token), so a server on
 * another port cannot guess it to have the browser bring the cookie along.
 */
// Here rather than in a file of its own: start-up loads this file anyway, and opens no more modules than before.
export function consoleHostName(): string {
  return `agentteam-${randomBytes(16).toString('hex')}.localhost`;
}

/** The paths the console serves: `/console` and everything under it. */
export function isConsolePath(path: string): boolean {
  return path === '/console' || path.startsWith('/console/');
}
