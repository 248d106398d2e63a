import type { Hono } from 'hono';
import { registerRuntimeLeaseRoutes, type LeaseContext } from './runtimes.js';
import { registerRuntimeListRoute } from './runtime-list.js';
import type { RuntimeEnv } from '../auth/principal.js';

/** What the operator routes need from the running daemon. */
export interface OperatorContext extends LeaseContext {
  readonly status: () => Record<string, unknown>;
  /** Starts an orderly stop after the response has been sent. */
  readonly stop: (reason: string) => void;
  readonly reload: () => Promise<unknown>;
}

/** Operator API under /api/v1 (the bearer check is applied by the app before these run). */
export function registerOperatorRoutes(app: Hono<RuntimeEnv>, ctx: OperatorContext): void {
  app.get('/api/v1/status', (c) => c.json({ ok: true, data: ctx.status() }));
  app.post('/api/v1/stop', (c) => {
    setImmediate(() => ctx.stop('operator'));
    return c.json({ ok: true, data: { stopping: true } }, 202);
  });
  app.post('/api/v1/reload', async (c) =>
    c.json({ ok: true, data: (await ctx.reload()) ?? { reloaded: true } }),
  );
  registerRuntimeListRoute(app, ctx.store);
  registerRuntimeLeaseRoutes(app, ctx);
}
