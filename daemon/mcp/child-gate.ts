import type { ToolAnnotations } from '../../catalog/mcp-tools.js';
import { ExecError } from '../errors.js';

/** The documented places a runtime names the provider thread of a call. */
export const THREAD_META_KEY = 'agentteam/threadId';
export const THREAD_HEADER = 'x-agentteam-thread-id';

/**
 * Reads the calling thread: `params._meta["agentteam/threadId"]` wins over the
 * `X-AgentTeam-Thread-Id` header. Null when the call does not identify one
 * (then it is treated as the primary thread).
 */
export function callThreadId(params: Record<string, unknown>, header: string | undefined): string | null {
  const meta = params._meta;
  if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) {
    const v = (meta as Record<string, unknown>)[THREAD_META_KEY];
    if (typeof v === 'string' && v.length > 0) return v;
  }
  return header !== undefined && header.length > 0 ? header : null;
}

/**
 * The delegated-child effect gate. A call from a thread other than the
 * authorization's primary thread may only use tools the trusted inventory
 * marks readOnlyHint: true. The decision uses the inventory entry alone
 * (undefined = unknown tool), never the call's arguments, and anything short
 * of an explicit `true` fails closed. A tool that decides itself (a client
 * tool and its saved delegated scope) passes `childAccess` instead of
 * relying on hints. With no recorded primary thread, any
 * identified thread counts as non-primary.
 */
export function checkChildGate(
  toolName: string,
  annotations: ToolAnnotations | undefined,
  threadId: string | null,
  primaryThreadId: string | null,
  /** The tool's own answer for delegated threads (a saved scope), when it has one. */
  childAccess?: boolean,
): void {
  if (threadId === null || threadId === primaryThreadId) return;
  if (childAccess === undefined ? annotations?.readOnlyHint === true : childAccess) return;
  throw new ExecError('forbidden', `${toolName} is not available to a delegated child thread`, {
    hint: 'You are running as a delegated child. Do not send or change anything yourself: return your result to your leader, who decides what to send.',
    metadata: { childThread: true },
  });
}
