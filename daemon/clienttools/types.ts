import type { Relay } from '../../catalog/client-tool-limits.js';
import type { DaemonEvent } from '../events/event.js';
import type { ErrorCode } from '../../catalog/errors.js';
import type { Masked } from '../masking/masked.js';
import type { StdioCall, StdioCancelReason } from '../../catalog/operator/stdio-call.js';

/**
 * Client tools: the shapes apps and the broker share. The app-facing JSON
 * uses snake_case (client_id, input_schema, timeout_s) as the client-tools
 * contracts spell it; the limits of both relays are one table
 * (catalog/client-tool-limits.ts).
 */

/** Tool and group names: what every MCP harness accepts as a tool name. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
export const GROUP_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The two fixed tools for runtimes that never re-list. */
export const FALLBACK_TOOL_NAMES = ['app_tools', 'app_call'] as const;

/**
 * A client tool as the broker holds it, whichever relay registered it: one
 * vocabulary inside the daemon. The edges spell it for their wire
 * (wire-spelling.ts): `timeout_s` for HTTP apps, `timeout_ms` for stdio.
 */
export interface ClientToolSpec {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Record<string, unknown>;
  /** The deadline of a call, absolute from its start; null: it never times out (an HTTP hand-off, `timeout_s: 0`). */
  readonly timeoutMs: number | null;
  /** The relay that registered it. */
  readonly relay: Relay;
}

/** Who is calling from a delegated thread (null for the primary thread). */
export interface Delegation {
  readonly task_id: string;
  readonly subagent_id: string;
}

/** A stdio app's answer: the seed's status, text and optional structured JSON. */
export interface StdioReply {
  readonly client_id: string;
  readonly status: 'success' | 'error';
  readonly text: string;
  /** Present (possibly null) only when the app sent it. */
  readonly structured?: { readonly value: unknown };
}

export interface RegisterBody {
  readonly client_id: string;
  readonly group: string;
  readonly tools: readonly ClientToolSpec[];
}

/** An MCP content block an app may answer with. */
export type ContentBlock =
  | { type: 'text'; text: string; [k: string]: unknown }
  | { type: 'image'; data: string; mimeType: string; [k: string]: unknown };

export type ResultBody =
  | { client_id: string; ok: true; content: ContentBlock[] }
  | { client_id: string; ok: false; error: { code: string; message: string } };

/** Who made a call: enough for the app to know the agent, never a credential. */
interface CallerInfo {
  readonly server_id: string;
  readonly agent_id: string;
  readonly session_id: string | null;
  readonly run_id: string | null;
}

/** A pending request as apps see it (event data and the pending list). */
export interface RequestView {
  readonly request_id: string;
  readonly group: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly agent: CallerInfo;
  readonly timeout_s: number;
  readonly created_at: string;
  readonly state: 'pending' | 'claimed';
  readonly claimed_by: string | null;
  /** Requests of stdio groups only: the identity and exact deadline of the call. */
  readonly call?: StdioCall;
  /** The agent's trace context (`traceparent`, `tracestate`) when the daemon traces: the app's spans can join it. */
  readonly _meta?: { readonly traceparent: string; readonly tracestate?: string };
}

/**
 * How a call ended, for the agent: the app's answer as the result gate made
 * it into a CallToolResult when the answer arrived (`code`: the app's own
 * error code, when it answered with one), or a failure of the call itself.
 */
export type CallOutcome =
  | { readonly ok: true; readonly frame: Masked; readonly isError: boolean; readonly code?: string }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

/** Why a call was withdrawn from the app (client_tool.cancelled reason); a stdio app reads it as STDIO_CANCEL_REASON says. */
export type CancelReason =
  | 'agent_stopped'
  | 'tool_withdrawn'
  | 'timeout'
  | 'no_client'
  | 'shutdown';

export const STDIO_CANCEL_REASON: Readonly<Record<CancelReason, StdioCancelReason>> = {
  agent_stopped: 'run_finished',
  tool_withdrawn: 'cancelled',
  timeout: 'timeout',
  no_client: 'cancelled',
  shutdown: 'shutdown',
};

/** How the broker reaches its transport and the tool registry. */
export interface BrokerHooks {
  /** Publishes one event on the event streams. */
  publish(event: DaemonEvent): void;
  /** The set of client tools changed (the registry adapter re-registers; names are remembered). */
  toolsChanged(groups: ReadonlyMap<string, readonly ClientToolSpec[]>, revision: number): void;
}
