import type { AuditTransport } from '../../catalog/audit.js';
import { closedOutcome, type CallOutcome } from '../../catalog/call-outcome.js';
import { ExecError } from '../errors/exec-error.js';

/**
 * What the layers a call passes through add to its call record while it
 * runs: where it was sent on (a declared command, an app, the kb upstream)
 * and how it ended when the frame alone does not say (a tool error result).
 * The observer that opened the record (daemon/observe/) reads it once the
 * call has finished, for the metrics, the span and the audit row alike.
 */
export interface AuditNote {
  transport?: AuditTransport;
  outcome?: CallOutcome;
  /** Exec: the body's size as read; MCP fills it from the arguments. */
  requestBytes?: number;
  /** The input as decoded (only read when payload recording is on). */
  input?: unknown;
  /** The serialized result or error body as sent. */
  result?: string;
}

interface Noted {
  readonly audit?: AuditNote;
}

/** The closed code of any thrown value (`internal` for what is not an ExecError). */
function outcomeOf(err: unknown): CallOutcome {
  return err instanceof ExecError ? err.code : 'internal';
}

/** The call failed with `err` (or a closed code). */
export function noteFailure(ctx: Noted, err: unknown): void {
  if (ctx.audit)
    ctx.audit.outcome =
      typeof err === 'string' ? closedOutcome(err, 'upstream_error') : outcomeOf(err);
}

/** The call was carried on by `transport`. */
export function noteTransport(ctx: Noted, transport: AuditTransport): void {
  if (ctx.audit) ctx.audit.transport = transport;
}

/** A client tool call of `group`: relayed to an app over stdio (`stdio.<client>` groups) or HTTP/SSE. */
export function noteClientGroup(ctx: Noted, group: string): void {
  noteTransport(ctx, group.startsWith('stdio.') ? 'client_stdio' : 'client_http');
}
