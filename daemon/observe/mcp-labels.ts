import type { Context } from 'hono';
import { ALL_PROTOCOL_VERSIONS } from '../../catalog/mcp-revisions.js';

/**
 * What of an MCP request may label a span or a metric: only values the
 * daemon recognises, never a caller's free text.
 */

const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'server/discover',
  'subscriptions/listen',
]);

/** A known method, or `_OTHER`. */
export function methodLabel(method: string): string {
  return MCP_METHODS.has(method) ? method : '_OTHER';
}

/**
 * The only `mcp.protocol.version` labels: the revisions the daemon serves.
 * A first-come set of any date-shaped value let sixteen made-up versions
 * take every slot, after which each real client was `_other` until restart.
 */
const SERVED_VERSIONS = new Set<string>(ALL_PROTOCOL_VERSIONS);
// Client-chosen string ids are recorded only when too short to be a credential (the SDKs' ids are numbers).
const SHORT_ID = /^[A-Za-z0-9_.:-]{1,24}$/;

/** The JSON-RPC id when it may be recorded. */
export function requestIdLabel(id: string | number): string | undefined {
  const rid = String(id);
  return typeof id === 'number' || SHORT_ID.test(rid) ? rid : undefined;
}

/** The request's MCP revision when it names one: a served revision, or `_other` for any other value. */
export function protocolVersion(
  c: Context,
  method: string,
  params: Record<string, unknown>,
): string | undefined {
  const meta = params._meta as Record<string, unknown> | undefined;
  const v =
    (meta !== null && typeof meta === 'object'
      ? meta['io.modelcontextprotocol/protocolVersion']
      : undefined) ??
    c.req.header('mcp-protocol-version') ??
    (method === 'initialize' ? params.protocolVersion : undefined);
  if (v === undefined) return undefined;
  return typeof v === 'string' && SERVED_VERSIONS.has(v) ? v : '_other';
}

/** The trace context `params._meta` carries (the conventions' place for it). */
export function metaCarrier(
  params: Record<string, unknown>,
): { traceparent?: string; tracestate?: string } | undefined {
  const meta = params._meta;
  if (meta === null || typeof meta !== 'object') return undefined;
  const { traceparent, tracestate } = meta as Record<string, unknown>;
  return {
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
    ...(typeof tracestate === 'string' ? { tracestate } : {}),
  };
}
