import type { Context } from 'hono';
import type { RuntimeRequest } from '../auth/principal.js';
import type { Carrier, SpanAttrs } from '../telemetry/tracing.js';

/** The caller a span may name: its server and agent (ids the daemon issued, never a token). */
export function callerAttrs(rt: RuntimeRequest): SpanAttrs {
  const p = rt.principal;
  return { 'agentteam.server_id': p.serverId, 'agentteam.agent_id': p.agentId };
}

/** The W3C trace context of the request's headers, which a server span continues. */
export function traceHeaders(c: Context): Carrier {
  return { traceparent: c.req.header('traceparent'), tracestate: c.req.header('tracestate') };
}
