import { ERROR_TABLE, type ErrorCode } from './errors.js';

/**
 * How an agent call ended, the one vocabulary of the call record: `ok`, or a
 * code of the closed error table. Metrics (`agentteam.outcome`), the audit
 * trail's `outcome` and the span's failure all read this one value.
 */
export type CallOutcome = 'ok' | ErrorCode;

/** A code from outside the daemon (an app's own) is kept only when it is in the closed set. */
export function closedOutcome(code: string | undefined, fallback: ErrorCode): CallOutcome {
  return code !== undefined && Object.hasOwn(ERROR_TABLE, code) ? (code as ErrorCode) : fallback;
}

/** The outcome of an answer no layer described: from its HTTP status alone. */
export function statusOutcome(status: number): CallOutcome {
  if (status < 300) return 'ok';
  if (status === 403) return 'forbidden';
  if (status === 409) return 'busy';
  if (status === 400) return 'invalid_request';
  return 'internal';
}
