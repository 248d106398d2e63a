import { boundErrorBody } from '../catalog/error-limits.js';
import { jsonText } from './json-text.js';
import { visible } from './terminal-text.js';

/**
 * What a command that threw leaves behind. An error that carries its own
 * exit status (no daemon: 3) is expected: its message on stderr and, like
 * every refusal, an `unavailable` error envelope on stdout. Anything else is
 * a bug: its stack on stderr, an `internal` envelope, exit 1. Shared by the
 * bundled exec entry (cli/agentteam.ts) and cli/program.ts; the error table
 * is not loaded for it (the exec bundle stays small), so the two codes and
 * their exit statuses are spelled here.
 */
export function exitStatusOfFailure(err: unknown): number {
  const exit = (err as { exitCode?: unknown } | null)?.exitCode;
  const expected = err instanceof Error && typeof exit === 'number';
  const message = err instanceof Error ? err.message : String(err);
  process.stdout.write(
    `${jsonText({ ok: false, error: boundErrorBody({ code: expected && exit === 3 ? 'unavailable' : 'internal', message }) })}\n`,
  );
  if (expected) {
    process.stderr.write(`agentteam: ${visible(message)}\n`);
    return exit;
  }
  process.stderr.write(
    `agentteam: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  return 1;
}
