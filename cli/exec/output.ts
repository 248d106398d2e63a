import type { ErrorBody } from '../../catalog/envelope.js';
import { ERROR_TABLE, isErrorCode } from '../../catalog/errors.js';

/** Data goes to stdout, one JSON document per line. */
export function printData(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Messages for people go to stderr, prefixed with the command. */
export function printMessage(message: string): void {
  process.stderr.write(`agentteam exec: ${message}\n`);
}

/** Prints a locally produced error envelope and returns its exit status from the error table. */
export function printError(error: ErrorBody): number {
  printData(JSON.stringify({ ok: false, error }));
  return ERROR_TABLE[error.code].exit;
}

/**
 * Exit status for an envelope the daemon sent: 0 for success, otherwise the
 * code's exit status from the error table (1 for any daemon-side failure
 * unless the table says otherwise); undefined when the text is no envelope.
 */
export function exitStatusOf(body: string): number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const env = value as { ok?: unknown; error?: { code?: unknown } };
  if (env.ok === true) return 0;
  if (env.ok !== false) return undefined;
  const code = env.error?.code;
  return isErrorCode(code) ? ERROR_TABLE[code].exit : 1;
}
