/**
 * The client tools' rows of the error table (`ERROR_TABLE` in errors.ts
 * spreads them in, in this order): what an app offering tools to agents, or
 * its stdio connection, can be told. Their JSON-RPC numbers are the block
 * -32030..-32050 (a delegated thread outside its saved scope: -32047), except the two stdio codes that are JSON-RPC's own
 * (invalid_params -32602, unsupported_method -32601).
 */
export const CLIENT_TOOL_ERRORS = {
  invalid_tool: {
    http: 400,
    jsonrpc: -32030,
    exit: 2,
    summary:
      'A tool registration is malformed or its input schema leaves the allowed subset; the message names the JSON path.',
  },
  too_many_tools: {
    http: 400,
    jsonrpc: -32031,
    exit: 1,
    summary: 'More than 64 tools in one group or in the whole daemon.',
  },
  unknown_client: {
    http: 404,
    jsonrpc: -32032,
    exit: 1,
    summary: 'The client_id names no connected client.',
  },
  name_conflict: {
    http: 409,
    jsonrpc: -32033,
    exit: 1,
    summary:
      'The tool name is already taken by a built-in tool, a declared tool or another client; the message names both parties.',
  },
  owned_by_other: {
    http: 409,
    jsonrpc: -32034,
    exit: 1,
    summary: "Another client serves this agent's group.",
  },
  already_claimed: {
    http: 409,
    jsonrpc: -32035,
    exit: 1,
    summary: 'The request was already claimed.',
  },
  already_settled: {
    http: 409,
    jsonrpc: -32036,
    exit: 1,
    summary: 'The request already has its result.',
  },
  not_claimant: {
    http: 409,
    jsonrpc: -32037,
    exit: 1,
    summary: 'Only the client that claimed the request may answer it.',
  },
  unknown_request: {
    http: 404,
    jsonrpc: -32038,
    exit: 1,
    summary: 'No pending request has this id (never existed, or settled).',
  },
  no_client: {
    http: 503,
    jsonrpc: -32039,
    exit: 1,
    summary: 'No connected app serves the tool any more.',
  },
  timeout: {
    http: 504,
    jsonrpc: -32040,
    exit: 1,
    summary:
      "The app did not answer within the tool's timeout_s, or a declared command ran past its timeoutMs (its process group was killed).",
  },
  cancelled: {
    http: 409,
    jsonrpc: -32041,
    exit: 1,
    summary: 'The call was cancelled (the agent stopped or the tool was withdrawn).',
  },
  inventory_too_large: {
    http: 413,
    jsonrpc: -32050,
    exit: 1,
    summary:
      "The registration would make an agent's tools/list larger than the inventory budget (128 KiB); the message names the budget and the size it would reach.",
  },
  // Client tools over stdio (`agentteam serve --stdio`).
  invalid_params: {
    http: 400,
    jsonrpc: -32602,
    exit: 2,
    summary:
      'The JSON-RPC params are malformed or break a stdio limit; a pending call stays pending.',
  },
  unsupported_method: {
    http: 400,
    jsonrpc: -32601,
    exit: 2,
    summary: 'The method does not exist, or needs a capability that initialize did not negotiate.',
  },
  duplicate_id: {
    http: 409,
    jsonrpc: -32042,
    exit: 1,
    summary: 'The request id was already used on this stdio connection.',
  },
  request_ids_exhausted: {
    http: 429,
    jsonrpc: -32043,
    exit: 1,
    summary: 'The stdio connection accepted its 4096 lifetime request ids; restart the child.',
  },
  stale_client_tool_call: {
    http: 409,
    jsonrpc: -32044,
    exit: 1,
    summary: 'The call is unknown, finished, expired or cancelled, or the identity does not match.',
  },
  client_tool_busy: {
    http: 429,
    jsonrpc: -32045,
    exit: 1,
    summary: 'The app already holds 16 pending calls.',
  },
  client_tool_payload_limit: {
    http: 413,
    jsonrpc: -32046,
    exit: 1,
    summary: 'The outgoing call does not fit the wire bounds of the stdio transport.',
  },
  not_in_scope: {
    http: 403,
    jsonrpc: -32047,
    exit: 1,
    summary:
      "A delegated thread called a client tool its saved scope does not name with the tool's current fingerprint (new, changed or removed since; a legacy session or an inspection task has none).",
  },
} as const satisfies Record<
  string,
  { http: number; jsonrpc: number; exit: number; summary: string }
>;
