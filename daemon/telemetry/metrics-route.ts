import type { Env, Hono, MiddlewareHandler } from 'hono';

const METRICS_PATH = '/metrics';
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /metrics in the Prometheus text format, behind the operator bearer
 * (`auth`). The serializer and the SDK data model it needs are imported on
 * the first scrape, so a daemon nobody scrapes never loads them.
 */
/** Generic in the app's env: the route reads nothing the runtime-auth middleware sets. */
export function registerMetricsRoute<E extends Env>(app: Hono<E>, auth: MiddlewareHandler): void {
  let render: Promise<() => string> | undefined;
  app.get(METRICS_PATH, auth, async (c) => {
    render ??= import('./prometheus.js').then(
      (m) => m.renderPrometheus,
      (err: unknown) => {
        render = undefined; // a failed load is tried again on the next scrape
        throw err;
      },
    );
    const text = (await render)();
    return c.body(text, 200, {
      'content-type': PROMETHEUS_CONTENT_TYPE,
      'cache-control': 'no-store',
    });
  });
}
