import type { Risk } from '../../catalog/descriptor.js';
import { ExecError } from '../errors/exec-error.js';
import type { Principal } from '../auth/principal.js';
import { attachedThread, checkChildGate } from '../http/child-gate.js';

/**
 * The delegated-child gate for Exec calls: a call naming a thread other than
 * the authorization's primary thread (X-AgentTeam-Thread-Id) may only read.
 * The risk is the call's effective one (workflow ops by their op table), decided
 * from the catalog, never from anything else the caller sends.
 */
export function execChildGate(
  principal: Principal,
  thread: string | undefined,
  risk: Risk,
  label: string,
): ExecError | null {
  try {
    const claimed = thread !== undefined && thread.length > 0 ? thread : null;
    // A runtime whose driver attaches threads (Codex app-server) has none attached on this route.
    if (principal.threadsByDriver) attachedThread(claimed, null);
    else
      checkChildGate(label, { readOnlyHint: risk === 'read' }, claimed, principal.primaryThreadId);
    return null;
  } catch (err) {
    if (err instanceof ExecError) return err;
    throw err;
  }
}
