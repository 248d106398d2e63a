import type { Catalog } from '../../catalog/index.js';

/**
 * Who is calling: the immutable binding of a runtime authorization, as the
 * authentication middleware resolved it from a verified token generation.
 */
export interface Principal {
  readonly authorizationId: string;
  readonly serverId: string;
  readonly agentId: string;
  readonly sessionId: string | null;
  readonly runId: string | null;
  /** The label `run --session NAME` gave (display only; a newer lease with the same name replaces this one). */
  readonly sessionName?: string | null;
  readonly workdir: string | null;
  /** The runtime's primary thread, for the delegated-child effect gate (MCP). */
  readonly primaryThreadId: string | null;
  /**
   * True when the runtime's driver attaches the calling thread to each tool
   * call itself (Codex app-server): a thread the call claims in a header or
   * `_meta` is then refused instead of believed.
   */
  readonly threadsByDriver?: boolean;
  /** The human-initiated turn this runtime answers (`run --turn-target/--turn-message`), or null. */
  readonly turn: TurnBinding | null;
  /** The delivered turn the daemon launched this runtime for: every audit row of its calls names it. */
  readonly turnId?: string | null;
  /** That turn's span as a W3C `traceparent`, when the daemon traces: a call that brings no trace context of its own continues it. */
  readonly turnTrace?: string | null;
}

/** A turn binding as recorded at launch; revalidated at every knowledge call. */
export interface TurnBinding {
  readonly target: string;
  readonly messageId: string;
}

/** What the runtime-auth middleware leaves on the hono context for handlers. */
export interface RuntimeRequest {
  readonly principal: Principal;
  /** The catalog snapshot the authorization is pinned to: the only actions it may call. */
  readonly catalog: Catalog;
  /** Aborted when the authorization is revoked or the daemon shuts down. */
  readonly signal: AbortSignal;
  /** The runtime kind the authorization was launched for, and the token generation that authenticated this request (audit). */
  readonly runtime?: string;
  readonly generationId?: string;
}

export type RuntimeEnv = { Variables: { runtime: RuntimeRequest } };
