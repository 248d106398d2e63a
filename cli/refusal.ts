import type { ErrorCode } from '../catalog/errors.js';
import { ERROR_TABLE } from '../catalog/errors.js';
import { boundErrorBody } from '../catalog/error-limits.js';
import { jsonText } from './json-text.js';
import { visible } from './terminal-text.js';

/**
 * A command that refuses (a bad command line, no daemon, a file it cannot
 * use) says so twice: the message on stderr for people, and the error
 * envelope on stdout, so a script reads every refusal as it reads an error
 * from the daemon. Returns the code's exit status from the error table.
 */
export function refuse(label: string, code: ErrorCode, message: string, hint?: string): number {
  process.stdout.write(
    `${jsonText({ ok: false, error: boundErrorBody({ code, message, ...(hint ? { hint } : {}) }) })}\n`,
  );
  process.stderr.write(`agentteam ${label}: ${visible(message)}\n`);
  return ERROR_TABLE[code].exit;
}

/** No daemon for this home (exit 3), in the words every command uses. */
export function noDaemon(label: string, home: string): number {
  return refuse(
    label,
    'unavailable',
    `no daemon is running for ${home}`,
    'Start one with `agentteam daemon start`.',
  );
}
