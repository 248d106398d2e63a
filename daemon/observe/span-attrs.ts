import type { CallView } from '../http/call-view.js';
import type { RuntimeRequest } from '../auth/principal.js';
import type { Carrier, SpanAttrs } from '../telemetry/tracing.js';

/** The caller a span may name: its server and agent (ids the daemon issued, never a token). */
export function callerAttrs(rt: RuntimeRequest): SpanAttrs {
  const p = rt.principal;
  return { 'agentteam.server_id': p.serverId, 'agentteam.agent_id': p.agentId };
}

/**
 * The W3C trace context a server span continues: the request's headers, or,
 * when they carry none, the span of the delivered turn the runtime was
 * launched for (so a turn is the root of its calls' trace).
 */
export function traceHeaders(c: CallView): Carrier {
  const traceparent = c.req.header('traceparent');
  if (traceparent === undefined) {
    const turn = turnTraceparent(c);
    if (turn !== null) return { traceparent: turn };
  }
  return { traceparent, tracestate: c.req.header('tracestate') };
}

/** The `traceparent` of the turn an authenticated runtime request was made in, or null. */
export function turnTraceparent(c: CallView): string | null {
  return (c.get('runtime') as RuntimeRequest | undefined)?.principal.turnTrace ?? null;
}
