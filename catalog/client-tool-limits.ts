/**
 * Client tools: the one limits table of both relays, the HTTP/SSE relay
 * (apps on `/api/v1/client-tools`) and the stdio relay (`agentteam serve
 * --stdio`). A row is one limit under its internal name; its two columns
 * are what each relay's contract sets (they differ where the contracts
 * differ; `null` where a relay has no such limit). Timeouts are in
 * milliseconds here, as the broker counts them.
 *
 * The edges spell these in their own wire vocabulary and nowhere else: the
 * stdio limits table the child announces (`STDIO_LIMITS` in stdio-tools.ts,
 * `name_bytes`, `default_timeout_ms`, ...) and the HTTP registration's
 * `timeout_s` are derived from these rows.
 */

export type Relay = 'sse' | 'stdio';

type Row = { readonly [R in Relay]: number | null };

export const CLIENT_TOOL_LIMITS = {
  /** Tools in one registration: an HTTP group, a stdio child's whole registry. */
  toolsPerRegistration: { sse: 64, stdio: 32 },
  /** Bytes of a tool name (the HTTP names are ASCII; stdio's are `client__` plus 1-56). */
  nameBytes: { sse: 64, stdio: 64 },
  /** Bytes of a description (HTTP: as JSON writes it; stdio: UTF-8). */
  descriptionBytes: { sse: 2048, stdio: 2048 },
  /** Compact serialized bytes of one input schema. */
  schemaBytes: { sse: 8192, stdio: 8192 },
  /** Nesting of an input schema (the root counts as one). */
  schemaDepth: { sse: 16, stdio: 16 },
  /** Schemas inside one input schema, the root included (the checker's bound). */
  schemaCount: { sse: 512, stdio: 8192 },
  /** Compact bytes of a stdio child's effective registry, defaulted timeouts included. */
  registryBytes: { sse: null, stdio: 32_768 },
  /** Compact bytes of one call's arguments (HTTP: bounded by the MCP request body). */
  argumentsBytes: { sse: null, stdio: 16_384 },
  /** Bytes of one answer (stdio: text plus compact structured; HTTP: the result gate's budget). */
  resultBytes: { sse: null, stdio: 32_768 },
  /** Calls one app holds pending at once (HTTP: bounded by each runtime's admission). */
  pendingCalls: { sse: null, stdio: 16 },
  /** The deadline of a tool registered without one. */
  defaultTimeoutMs: { sse: 30_000, stdio: 30_000 },
  /** Shortest deadline; HTTP's 0 is a hand-off that never times out. */
  minTimeoutMs: { sse: 0, stdio: 1000 },
  /** Longest deadline. */
  maxTimeoutMs: { sse: 86_400_000, stdio: 300_000 },
} as const satisfies Record<string, Row>;

/** Client tools in the whole daemon, all groups of both relays together. */
export const CLIENT_TOOLS_PER_DAEMON = 64;

type Limits = typeof CLIENT_TOOL_LIMITS;

/** One relay's column of the table. */
export function limitsOf<R extends Relay>(
  relay: R,
): { readonly [K in keyof Limits]: Limits[K][R] } {
  return Object.fromEntries(
    Object.entries(CLIENT_TOOL_LIMITS).map(([k, row]) => [k, row[relay]]),
  ) as { readonly [K in keyof Limits]: Limits[K][R] };
}
