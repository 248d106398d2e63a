import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { ConsoleSession, ConsoleSessions } from './sessions.js';
import { sameSecret } from '../../lib/same-secret.js';

export const COOKIE = 'agentteam_console';
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Headers on every console response, refusals included. */
export function consoleHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.res.headers.set('content-security-policy', CSP);
    c.res.headers.set('x-frame-options', 'DENY');
    c.res.headers.set('x-content-type-options', 'nosniff');
    // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on form posts, which the Origin check refuses.
    c.res.headers.set('referrer-policy', 'same-origin');
    c.res.headers.set('cross-origin-opener-policy', 'same-origin');
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
  };
}

/**
 * The console answers only under its own name (consoleHostName in mount.ts),
 * sign-in and assets included: a cookie can then exist only for that name,
 * and a session cookie sent under any other name (127.0.0.1, localhost)
 * opens nothing. The refusal does not say the name, which only a sign-in
 * link gives out.
 */
export function onlyAt(host: () => string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.header('host')?.toLowerCase() === host()) return next();
    return c.html(
      '<!doctype html><title>agentteam console</title><p>The console answers only at the address in its sign-in link. Run <code>agentteam console</code> for one.</p>',
      421,
    );
  };
}

/**
 * A state change must come from a console page of this daemon: its exact
 * origin (the Host/Origin guard before this would also let other names of
 * the daemon through) and, once signed in, the session's CSRF token as the
 * `csrf` form field.
 */
export function fromConsolePage(c: Context, host: () => string): boolean {
  return c.req.header('origin')?.toLowerCase() === `http://${host()}`;
}

async function csrfOk(c: Context, session: ConsoleSession, host: () => string): Promise<boolean> {
  if (!fromConsolePage(c, host)) return false;
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const token = c.req.header('x-csrf-token') ?? (typeof form.csrf === 'string' ? form.csrf : '');
  return sameSecret(session.csrf, token);
}

/** Every console path but the sign-in needs a live session cookie; POSTs need the CSRF token and Origin too. */
export function sessionGuard(
  sessions: ConsoleSessions,
  host: () => string,
  open: (path: string) => boolean,
): MiddlewareHandler<{ Variables: { session: ConsoleSession } }> {
  return async (c, next) => {
    if (open(c.req.path)) return next();
    const session = sessions.lookup(getCookie(c, COOKIE));
    if (!session) {
      return c.html(
        '<!doctype html><title>agentteam console</title><p>Not signed in. Run <code>agentteam console</code> for a sign-in link.</p>',
        401,
      );
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !(await csrfOk(c, session, host))) {
      return c.html(
        '<!doctype html><title>agentteam console</title><p>Refused: this request did not come from a console page (Origin or CSRF token missing).</p>',
        403,
      );
    }
    c.set('session', session);
    return next();
  };
}
