import type { CallView } from '../http/call-view.js';
import type { AuditVia } from '../../catalog/audit.js';
import type { AuditNote } from '../audit/note.js';
import type { AuditTrail } from '../audit/trail.js';
import type { SpanHandle } from '../telemetry/tracing.js';
import { tracing } from '../telemetry/tracing.js';
import type { CallOutcome } from '../../catalog/call-outcome.js';

/**
 * One agent call (an Exec action, an MCP request) as the observer sees it:
 * filled once while the call runs, then read by the metrics, the span and
 * the audit trail alike (observer.ts). The layers a call passes through add
 * what only they know to `note` (daemon/audit/note.ts): where it was sent
 * on, how a tool error ended, the body's size, input and result.
 */
export interface CallRecord {
  readonly via: AuditVia;
  /** Start on the monotonic clock (performance.now(), ms). */
  readonly started: number;
  /** Start on the daemon's clock (ms), when the audit trail is on. */
  readonly at: number;
  readonly trail: AuditTrail | null;
  readonly span: SpanHandle | undefined;
  readonly note: AuditNote;
  /** The tool as the caller named it (`domain/action`, or an MCP tool name); null until known. */
  tool: string | null;
  /** The name a metric may carry: a recognised action or a registered tool (unset: unrecognised). */
  label: string | undefined;
  /** The envelope or CallToolResult as sent (counted when the audit trail is on). */
  resultBytes: number;
  threadId: string | null;
  traceId: string | null;
  /** MCP: the JSON-RPC error a tool call was answered with (the call never reached a tool). */
  rpc: number | undefined;
  outcome: CallOutcome;
}

/** Where a call's record rides on its context: a property, cheaper than a WeakMap entry per call. */
const RECORD = Symbol('agentteam.callRecord');
type Carrier = { [RECORD]?: CallRecord };

export function openRecord(
  c: CallView,
  via: AuditVia,
  trail: AuditTrail | null,
  span: SpanHandle | undefined,
): CallRecord {
  const rec: CallRecord = {
    via,
    started: performance.now(),
    at: trail === null ? 0 : trail.now(),
    trail,
    span,
    note: {},
    tool: null,
    label: undefined,
    resultBytes: 0,
    threadId: null,
    traceId: null,
    rpc: undefined,
    outcome: 'ok',
  };
  (c as Carrier)[RECORD] = rec;
  return rec;
}

/** The record of the call `c` carries (opened by `observeExec` or `observeMcp`). */
export function recordOf(c: CallView): CallRecord | undefined {
  return (c as Carrier)[RECORD];
}

/**
 * Runs the part of a call that can make child spans (an Exec action's
 * handler, an MCP tool call) with the call's server span active, through
 * everything it awaits. The rest of the request (reading the body, framing,
 * writing the answer) runs outside, so its promises cost no async hook
 * (daemon/telemetry/request-context.ts).
 */
export function inRequestSpan<T>(c: CallView, fn: () => Promise<T>): Promise<T> {
  const t = tracing();
  const span = t === null ? undefined : (c as Carrier)[RECORD]?.span;
  return span === undefined ? fn() : t!.within(span, fn);
}

/** `inRequestSpan` for synchronous work (the result gate). */
export function inRequestSpanSync<T>(c: CallView, fn: () => T): T {
  const t = tracing();
  const span = t === null ? undefined : (c as Carrier)[RECORD]?.span;
  return span === undefined ? fn() : t!.withinSync(span, fn);
}
