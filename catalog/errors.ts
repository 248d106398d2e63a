import { CLIENT_TOOL_ERRORS } from './client-tool-errors.js';

/**
 * The closed set of error codes. Every error that crosses a boundary (HTTP
 * envelope, JSON-RPC error, CLI exit status) is one of these, and this table is
 * the only place that maps a code to its transport-specific numbers.
 *
 * Each code has a JSON-RPC number of its own, so a number read off the wire
 * names one code (test/catalog/error-table.test.ts). Five codes are exactly JSON-RPC's
 * predefined errors and carry its numbers: invalid_json -32700,
 * invalid_request -32600, unsupported_method -32601, invalid_params -32602,
 * internal -32603. Every other number is in JSON-RPC's range for
 * implementation-defined server errors, -32000 to -32099.
 * Blocks: -32001..-32018 request and resource errors, -32022 the result
 * budget, -32030..-32050 client tools (HTTP/SSE, then stdio), -32060..-32064
 * the knowledge tools (the search index, the turn checks).
 */
export const ERROR_TABLE = {
  invalid_request: {
    http: 400,
    jsonrpc: -32600,
    exit: 2,
    summary: 'The request is not shaped as the route expects.',
  },
  invalid_json: {
    http: 400,
    jsonrpc: -32700,
    exit: 2,
    summary: 'The body is not exactly one well-formed JSON value.',
  },
  validation_failed: {
    http: 400,
    jsonrpc: -32006,
    exit: 2,
    summary: 'The input does not match the action schema; details[].path names each bad field.',
  },
  usage: { http: 400, jsonrpc: -32007, exit: 2, summary: 'The command line is not valid.' },
  forbidden: {
    http: 403,
    jsonrpc: -32001,
    exit: 1,
    summary: 'The credential is not accepted for this route.',
  },
  not_found: {
    http: 404,
    jsonrpc: -32004,
    exit: 1,
    summary: 'The named resource or action does not exist.',
  },
  method_not_allowed: {
    http: 405,
    jsonrpc: -32005,
    exit: 1,
    summary: 'The route does not accept this HTTP method.',
  },
  read_timeout: {
    http: 408,
    jsonrpc: -32008,
    exit: 1,
    summary: 'The request body did not arrive within the read deadline.',
  },
  busy: {
    http: 409,
    jsonrpc: -32009,
    exit: 1,
    summary: 'Too many requests are in flight; retry shortly.',
  },
  idempotency_conflict: {
    http: 409,
    jsonrpc: -32010,
    exit: 1,
    summary: 'The idempotency key was already used with a different body.',
  },
  revision_conflict: {
    http: 409,
    jsonrpc: -32011,
    exit: 1,
    summary: 'The resource changed since the revision the caller expected.',
  },
  invalid_transition: {
    http: 409,
    jsonrpc: -32012,
    exit: 1,
    summary: 'The resource is not in a state that allows this change.',
  },
  already_decided: {
    http: 409,
    jsonrpc: -32018,
    exit: 1,
    summary: 'The approval request was already decided (or ended); the first decision stands.',
  },
  already_exists: {
    http: 409,
    jsonrpc: -32014,
    exit: 1,
    summary: 'A resource with this name or id already exists.',
  },
  expired: {
    http: 410,
    jsonrpc: -32015,
    exit: 1,
    summary: 'The request expired before it was decided.',
  },
  body_too_large: {
    http: 413,
    jsonrpc: -32013,
    exit: 1,
    summary: 'The request body exceeds the size limit.',
  },
  result_budget_exceeded: {
    http: 422,
    jsonrpc: -32022,
    exit: 1,
    summary: 'The complete result is larger than the result budget; follow hint/next.',
  },
  upstream_error: { http: 502, jsonrpc: -32002, exit: 1, summary: 'A backing service failed.' },
  index_unavailable: {
    http: 503,
    jsonrpc: -32060,
    exit: 1,
    summary: 'The search index is missing or being rebuilt; follow hint and retry later.',
  },
  turn_unbound: {
    http: 403,
    jsonrpc: -32061,
    exit: 1,
    summary: 'The call needs a human-initiated turn and the runtime was started without one.',
  },
  turn_message_not_human: {
    http: 403,
    jsonrpc: -32062,
    exit: 1,
    summary: 'The bound turn message was written by an agent, not a person.',
  },
  turn_target_mismatch: {
    http: 403,
    jsonrpc: -32063,
    exit: 1,
    summary: 'The bound turn message belongs to another target.',
  },
  target_unreadable: {
    http: 403,
    jsonrpc: -32064,
    exit: 1,
    summary: 'The agent may not read the bound turn target.',
  },
  provider_unauthorized: {
    http: 502,
    jsonrpc: -32016,
    exit: 1,
    summary: 'The extension provider refused its authorization (401/403 upstream).',
  },
  upstream_unreachable: {
    http: 504,
    jsonrpc: -32017,
    exit: 1,
    summary: 'The extension upstream could not be reached or did not answer in time.',
  },
  unavailable: {
    http: 503,
    jsonrpc: -32003,
    exit: 3,
    summary: 'The daemon is not running, is shutting down, or no credentials are available.',
  },
  internal: {
    http: 500,
    jsonrpc: -32603,
    exit: 1,
    summary: 'An unexpected failure inside the daemon.',
  },
  // Client tools: their own block of numbers, -32030..-32050 (HTTP/SSE, then stdio).
  ...CLIENT_TOOL_ERRORS,
} as const satisfies Record<
  string,
  { http: number; jsonrpc: number; exit: number; summary: string }
>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}
