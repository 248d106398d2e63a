import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { AuthorizationInit } from './authorization.js';

/** An id of `prefix`, derived one way from the runtime directory's name under `label`. */
function derived(prefix: string, label: string, dirName: string): string {
  const h = createHash('sha256').update(`agentteam-run-identity\u0000${label}\u0000`);
  return `${prefix}${h.update(dirName).digest('base64url').slice(0, 20)}`;
}

/**
 * The session and run a new authorization names in its calls (client-tool
 * calls, workspace get, the runtime list). A lease opened by `agentteam run`
 * (`mintIds`) gets ids the daemon derives from its private directory's name,
 * never ids typed by whoever asked: the name comes from the lease's random
 * resume secret, so each run has its own, and the re-lease of the same run
 * after a daemon restart (same directory) keeps them. A turn the runner
 * launches passes its own.
 */
export function runIds(
  init: AuthorizationInit,
  dir: string,
): { sessionId: string | null; runId: string | null } {
  if (!init.mintIds) return { sessionId: init.sessionId ?? null, runId: init.runId ?? null };
  const name = basename(dir);
  return { sessionId: derived('ses_', 'session', name), runId: derived('run_', 'run', name) };
}
