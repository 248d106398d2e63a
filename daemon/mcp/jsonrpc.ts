import { ERROR_TEXT_MAX_BYTES, cutJsonText } from '../../catalog/error-limits.js';

/**
 * JSON-RPC 2.0 framing for the MCP route: classification of one decoded
 * message and the serialized replies. Wire errors (numeric codes) live here;
 * the daemon's own ExecError never crosses as a JSON-RPC error except through
 * ERROR_TABLE's jsonrpc column.
 */

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

export type RpcId = string | number;

export type Incoming =
  | { kind: 'request'; id: RpcId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string }
  | { kind: 'response' }
  | { kind: 'invalid'; id: RpcId | null; message: string };

function isId(v: unknown): v is RpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Sorts one decoded JSON value into request / notification / response / invalid. Batches are handled by the caller. */
export function classify(msg: unknown): Incoming {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
    return { kind: 'invalid', id: null, message: 'a JSON-RPC message must be an object' };
  }
  const m = msg as Record<string, unknown>;
  const id = isId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') return { kind: 'invalid', id, message: 'jsonrpc must be "2.0"' };
  if (typeof m.method === 'string') {
    if (
      m.params !== undefined &&
      (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params))
    ) {
      return { kind: 'invalid', id, message: 'params must be an object' };
    }
    const params = (m.params ?? {}) as Record<string, unknown>;
    if (!Object.hasOwn(m, 'id')) return { kind: 'notification', method: m.method };
    if (id === null)
      return { kind: 'invalid', id: null, message: 'id must be a string or a number' };
    return { kind: 'request', id, method: m.method, params };
  }
  if (Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error')) return { kind: 'response' };
  return { kind: 'invalid', id, message: 'not a JSON-RPC request, notification or response' };
}

/** `resultJson` is already serialized, so large results are stringified once. */
export function resultFrame(id: RpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

/** The message is cut to the error envelope's text limit: it may quote a caller's method or tool name. */
export function errorFrame(
  id: RpcId | null,
  code: number,
  message: string,
  data?: unknown,
): string {
  const error: Record<string, unknown> = {
    code,
    message: cutJsonText(message, ERROR_TEXT_MAX_BYTES),
  };
  if (data !== undefined) error.data = data;
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** An HTTP reply carrying one frame (or none: 202 and the like), not screened by the result gate. */
export function reply(
  status: number,
  body: string | null,
  extra: Record<string, string> = {},
): Response {
  return new Response(body, {
    status,
    headers: body === null ? extra : { ...JSON_HEADERS, ...extra },
  });
}
