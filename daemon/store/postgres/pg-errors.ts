import { ExecError } from '../../errors/exec-error.js';
import type { StoreUrl } from '../../../lib/store-url.js';
import { NestedStatementError } from '../sql.js';

/** SQLSTATEs after which the whole transaction is run again: serialization failure, deadlock. */
const RETRY = new Set(['40001', '40P01']);
export const retryable = (err: unknown) => RETRY.has((err as { code?: string }).code ?? '');

/**
 * Errors that leave the driver: our own ExecErrors as they are; a lost or
 * refused connection as `upstream_error` naming the store's host (password
 * masked); anything else unchanged (it becomes `internal` at the edge).
 */
export function leavingError(err: unknown, url: StoreUrl): unknown {
  if (err instanceof ExecError || err instanceof NestedStatementError) return err;
  const e = err as { code?: string; message?: string };
  const code = e.code ?? '';
  const connection =
    /^(08|57P|53)/.test(code) ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE'].includes(
      code,
    ) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      e.message ?? '',
    );
  if (!connection) return err;
  return new ExecError(
    'upstream_error',
    `the team store at ${url.location} is unreachable: ${url.mask(e.message ?? code)}`,
    {
      hint: 'Retry shortly; if it persists, check that the database server is up (daemon status names it).',
    },
  );
}
