import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { tracing } from '../telemetry/tracing.js';

/**
 * Operator routes (/api/v1/*): a server span `{METHOD} {route}` continuing
 * the traceparent header, when tracing is on. (Agent calls are observed by
 * daemon/observe/, which also feeds the metrics and the audit trail.)
 */
export function operatorSpans(): MiddlewareHandler {
  return async (c, next) => {
    const t = tracing();
    if (!t) return next();
    const method = c.req.method;
    const span = t.server(
      `${method} /api/v1`,
      {
        'http.request.method': method,
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
      },
      { traceparent: c.req.header('traceparent'), tracestate: c.req.header('tracestate') },
    );
    try {
      await t.within(span, next);
    } finally {
      const route =
        matchedRoutes(c)
          .filter((r) => r.method !== 'ALL')
          .at(-1)?.path ?? '/api/v1/*';
      span.rename(`${method} ${route}`);
      span.set({ 'http.route': route, 'http.response.status_code': c.res.status });
      if (c.res.status >= 400) span.fail(String(c.res.status));
      span.end();
    }
  };
}
