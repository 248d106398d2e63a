import type { ToolAnnotations } from '../../catalog/mcp-tool-descriptor.js';
import { ExecError } from '../errors/exec-error.js';

/** The documented places a runtime names the provider thread of a call. */
export const THREAD_META_KEY = 'agentteam/threadId';
export const THREAD_HEADER = 'x-agentteam-thread-id';

/**
 * Reads the calling thread: `params._meta["agentteam/threadId"]` wins over the
 * `X-AgentTeam-Thread-Id` header. Null when the call does not identify one
 * (then it is treated as the primary thread).
 */
export function callThreadId(
  params: Record<string, unknown>,
  header: string | undefined,
): string | null {
  const meta = params._meta;
  if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) {
    const v = (meta as Record<string, unknown>)[THREAD_META_KEY];
    if (typeof v === 'string' && v.length > 0) return v;
  }
  return header !== undefined && header.length > 0 ? header : null;
}

/** How the thread of a call relates to the run: its primary thread, one the primary spawned (or their spawn), or neither. */
export type ThreadRole = 'primary' | 'child' | 'unknown';

const RETURN_TO_LEADER =
  'You are running as a delegated child. Do not send or change anything yourself: return your result to your leader, who decides what to send.';

/**
 * The delegated-child effect gate, as one decision. The primary thread calls
 * anything (an unknown tool is then refused by the registry as unknown). A
 * child calls only tools the trusted inventory marks readOnlyHint: true:
 * the decision uses the inventory entry alone (undefined = unknown tool),
 * never the call's arguments, and anything short of an explicit `true`
 * fails closed. A tool that decides itself (a client tool and its saved
 * delegated scope) passes `childAccess` instead of relying on hints. A
 * thread that is neither (a driver that knows every thread has never seen
 * it) calls nothing.
 */
export function threadGate(
  toolName: string,
  annotations: ToolAnnotations | undefined,
  role: ThreadRole,
  /** The tool's own answer for delegated threads (a saved scope), when it has one. */
  childAccess?: boolean,
): void {
  if (role === 'primary') return;
  if (role === 'unknown') {
    throw new ExecError(
      'forbidden',
      `${toolName} refused: the calling thread is neither this run's primary thread nor one it spawned`,
      {
        hint: RETURN_TO_LEADER,
        metadata: { childThread: true, unknownThread: true },
      },
    );
  }
  if (childAccess === undefined ? annotations?.readOnlyHint === true : childAccess) return;
  throw new ExecError('forbidden', `${toolName} is not available to a delegated child thread`, {
    hint: RETURN_TO_LEADER,
    metadata: { childThread: true },
  });
}

/**
 * The gate where the thread is only claimed by the call (header or _meta):
 * no claim, or the recorded primary thread, is the primary; any other
 * identified thread counts as a child (with no recorded primary thread,
 * every identified thread does).
 */
export function checkChildGate(
  toolName: string,
  annotations: ToolAnnotations | undefined,
  threadId: string | null,
  primaryThreadId: string | null,
  childAccess?: boolean,
): void {
  threadGate(
    toolName,
    annotations,
    threadId === null || threadId === primaryThreadId ? 'primary' : 'child',
    childAccess,
  );
}

/**
 * Where a driver attaches the thread itself (Codex app-server: the thread id
 * comes from Codex with each call, or there is none over HTTP), a thread the
 * runtime claims in a header or `_meta` is not evidence: a claim that
 * differs from the attached thread is refused; no claim leaves the attached one.
 */
export function attachedThread(claimed: string | null, attached: string | null): string | null {
  if (claimed !== null && claimed !== attached) {
    throw new ExecError(
      'forbidden',
      'the thread id claimed by the call differs from the thread its driver attached',
      {
        hint: 'Do not name a thread yourself: the agentteam driver of this runtime attaches the calling thread to each tool call.',
        metadata: { claimedThread: claimed, attachedThread: attached },
      },
    );
  }
  return attached;
}
