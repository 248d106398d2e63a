import type { Context, Hono } from 'hono';
import { OperatorCallError } from '../../lib/operator-client.js';
import { Layout } from './layout.js';
import { PairingCode } from './pages/devices.js';
import type { ConsoleOperator } from './operator-client.js';
import type { ConsoleEnv } from './page-bodies.js';
import { registerTaskActions } from './task-actions.js';

type Page = (c: Context, el: unknown, status?: number) => Promise<Response>;

/**
 * The console's actions (session, Origin and CSRF checked by the guard
 * first): each posts one operator API row through the typed client, then
 * goes back to its page, or shows the daemon's refusal.
 */
export function registerConsoleActions(
  app: Hono<ConsoleEnv>,
  op: ConsoleOperator,
  page: Page,
): void {
  // `run` may name where to go instead of `back` (a created task's page).
  const act = async (c: Context, back: string, run: () => Promise<unknown>) => {
    try {
      const to = await run();
      return c.redirect(typeof to === 'string' ? to : back, 303);
    } catch (err) {
      if (!(err instanceof OperatorCallError)) throw err;
      if (err.code === 'already_decided') return alreadyDecided(c, page, back, err.message);
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
  registerTaskActions(app, op, act);
  app.post('/console/runtimes/:id/revoke', (c) =>
    act(c, '/console/runtimes', () =>
      op.call('runtimes.revoke', { params: { id: c.req.param('id') } }),
    ),
  );
  app.post('/console/devices/:id/revoke', (c) =>
    act(c, '/console/devices', () =>
      op.call('devices.revoke', { params: { id: c.req.param('id') } }),
    ),
  );
  // The code is shown once, on this answer; it is never put in a URL.
  app.post('/console/devices/pair', async (c) => {
    const { code, expiresAt } = await op.call('devices.pair', {});
    return page(
      c,
      <Layout page="devices" title="Pair a device">
        <PairingCode code={code} expiresAt={expiresAt} />
      </Layout>,
    );
  });
  app.post('/console/turns/:serverId/:id/cancel', async (c) => {
    const form = await c.req.parseBody();
    const back =
      typeof form.back === 'string' &&
      /^\/console\/turn\?server=[\w.%-]+&id=[\w.%-]+$/.test(form.back)
        ? form.back
        : '/console/turns';
    return act(c, back, () =>
      op.call('turns.cancel', {
        params: { serverId: c.req.param('serverId'), id: c.req.param('id') },
      }),
    );
  });
  app.post('/console/approvals/:id/decide', async (c) => {
    const form = await c.req.parseBody();
    const note = typeof form.note === 'string' && form.note.trim() !== '' ? form.note : undefined;
    // Anything but approve or reject is sent as is, so the person sees the daemon's own refusal.
    const asked = String(form.decision ?? '');
    const forTurn = asked === 'approve-turn';
    const decision = (forTurn ? 'approve' : asked) as 'approve' | 'reject';
    return act(c, backTo(form.back), () =>
      op.call('approvals.decide', {
        params: { id: c.req.param('id') },
        body: { decision, ...(note ? { note } : {}), ...(forTurn ? { scope: 'turn' } : {}) },
      }),
    );
  });
  app.post('/console/tools/asks/:id/answer', async (c) => {
    const form = await c.req.parseBody();
    const answer = typeof form.answer === 'string' ? form.answer : '';
    return act(c, '/console/tools', () =>
      op.call('tools.answer', { params: { id: c.req.param('id') }, body: { answer } }),
    );
  });
}

/** Where a decision returns: the overview or the older page it came from (a link of the page's own form), else the newest. */
function backTo(back: unknown): string {
  return typeof back === 'string' &&
    (back === '/console/' || /^\/console\/approvals\?server=[\w.%-]+&cursor=[\w.%-]+$/.test(back))
    ? back
    : '/console/approvals';
}

/** A decision that came second: someone (or the deadline, or the turn's end) settled the request first. */
function alreadyDecided(c: Context, page: Page, back: string, message: string): Promise<Response> {
  return page(
    c,
    <Layout page="detail" title="Already decided">
      <h1>Already decided</h1>
      <p role="alert" class="bad" data-already-decided>
        This request was settled before your decision arrived; yours was not applied. {message}
      </p>
      <p>
        <a href={back}>Back</a>
      </p>
    </Layout>,
    409,
  );
}
