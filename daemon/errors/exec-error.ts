import {
  ERROR_TABLE,
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
} from '../../catalog/index.js';
import { boundErrorBody } from '../../catalog/error-limits.js';

interface ExecErrorExtra {
  hint?: string;
  next?: Record<string, unknown>;
  details?: ErrorDetail[];
  /** Problems found beyond `details` (the validator reports a count, not every entry). */
  detailsOmitted?: number;
  metadata?: Record<string, unknown>;
}

/**
 * The one error type the daemon throws across module boundaries. Its code is
 * from the closed set in catalog/errors.ts; transports turn it into an HTTP
 * envelope, a JSON-RPC error or a tool result through `errorBody`.
 */
export class ExecError extends Error {
  override name = 'ExecError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: ExecErrorExtra = {},
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_TABLE[this.code].http;
  }
}

/**
 * Serializes any thrown value into the wire error body, within the envelope's
 * size limits (catalog/error-limits.ts); unknown errors become `internal`
 * without detail.
 */
export function errorBody(err: unknown): ErrorBody {
  if (err instanceof ExecError) {
    const body: ErrorBody = { code: err.code, message: err.message };
    if (err.extra.hint !== undefined) body.hint = err.extra.hint;
    if (err.extra.next !== undefined) body.next = err.extra.next;
    if (err.extra.details !== undefined) body.details = err.extra.details;
    if (err.extra.detailsOmitted !== undefined) body.detailsOmitted = err.extra.detailsOmitted;
    if (err.extra.metadata !== undefined)
      body.metadata = err.extra.metadata as ErrorBody['metadata'];
    return boundErrorBody(body);
  }
  return { code: 'internal', message: 'internal error' };
}
