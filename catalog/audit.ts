/**
 * The audit trail's public shapes, shared by the daemon (which records and
 * serves them) and the CLI (which prints them). Data only, no I/O.
 */

/** What carried a call past the daemon's front door: the agent's route, or where the daemon sent it on. */
export const AUDIT_TRANSPORTS = [
  'exec',
  'extension',
  'mcp',
  'declared',
  'client_http',
  'client_stdio',
  'kb_upstream',
  'operator',
  'runtime',
] as const;
export type AuditTransport = (typeof AUDIT_TRANSPORTS)[number];

/**
 * The route a call arrived on: an agent's (Exec, MCP), a person's write
 * through the operator API, or a runtime's own permission request (`runtime`:
 * one row when it ends, naming how and by whom).
 */
export const AUDIT_VIAS = ['exec', 'mcp', 'operator', 'runtime'] as const;
export type AuditVia = (typeof AUDIT_VIAS)[number];

/** One recorded call as the operator API returns it. */
export interface AuditEntry {
  /** Position in the trail (newest is highest); also what --follow continues after. */
  readonly seq: number;
  /** When the call started (RFC 3339, ms). */
  readonly at: string;
  readonly serverId: string;
  readonly agentId: string;
  readonly authorizationId: string;
  readonly generationId: string;
  readonly runtime: string;
  readonly threadId: string | null;
  readonly via: AuditVia;
  readonly transport: AuditTransport;
  /** `domain/action` for Exec, the tool name for MCP. */
  readonly tool: string;
  /** `ok`, or a code from the closed error-code set. */
  readonly outcome: string;
  readonly durationMs: number;
  readonly requestBytes: number;
  readonly resultBytes: number;
  readonly traceId: string | null;
  /** The turn the call was made in (the daemon ran the runtime for a person's message), or null. */
  readonly turnId: string | null;
  /** Only with payload recording on: the masked arguments, cut to the configured bytes. */
  readonly args?: string;
  readonly result?: string;
}

/** One line of the summary: calls, failures and duration percentiles of one tool or one agent. */
export interface AuditSummaryRow {
  readonly key: string;
  readonly calls: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
}

export interface AuditSummary {
  readonly since: string;
  readonly byTool: AuditSummaryRow[];
  readonly byAgent: AuditSummaryRow[];
}

/** `--since` grammar: a positive integer and a unit (s, m, h, d). */
export const SINCE_PATTERN = /^([1-9][0-9]{0,8})(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of a `--since` value, or null when it is not one. */
export function sinceMs(text: string): number | null {
  const m = SINCE_PATTERN.exec(text);
  if (!m) return null;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}
