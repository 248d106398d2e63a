import type { Principal } from '../../auth/principal.js';
import type { DelegatedChild, ToolHost } from '../../tools/contracts.js';
import type { ThreadBook } from './threads.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * Whether `thread/started` reports an inspection task: Codex's review
 * sub-agent (`source.subAgent` is `"review"`) or a spawned agent in the
 * `explorer` role (`source.subAgent.thread_spawn.agent_role`, or the
 * thread's own `agentRole`).
 */
function inspectionOf(method: string, params: Record<string, unknown>): string | null {
  if (method !== 'thread/started') return null;
  const thread = obj(params.thread);
  const sub = obj(thread.source).subAgent;
  const role = obj(obj(sub).thread_spawn).agent_role ?? thread.agentRole;
  return sub === 'review' || role === 'explorer' ? str(thread.id) : null;
}

/**
 * Tells the tool host about every child thread a notification made known
 * (the thread book decided which; nothing a model writes is read) and about
 * a known child that `thread/started` shows to be an inspection task. The
 * delegation's task is the announcing item (`subAgentActivity`,
 * `collabAgentToolCall`); a `resumeAgent` call brings back a thread of an
 * earlier delegation instead of spawning one.
 */
export function noteDelegations(
  host: ToolHost,
  principal: Principal,
  book: ThreadBook,
  method: string,
  raw: unknown,
  learned: readonly { readonly threadId: string; readonly parentId: string }[],
): void {
  if (!host.delegated) return;
  const params = obj(raw);
  const item = obj(params.item);
  const inspection = inspectionOf(method, params);
  const seen = new Set<string>();
  for (const t of learned) {
    seen.add(t.threadId);
    host.delegated(principal, {
      threadId: t.threadId,
      parentId: t.parentId,
      primaryId: book.primary,
      taskId: str(item.id) ?? t.threadId,
      inspection: inspection === t.threadId,
      resumed: item.type === 'collabAgentToolCall' && item.tool === 'resumeAgent',
    });
  }
  const parent = inspection === null ? null : book.parentOf(inspection);
  if (inspection !== null && parent !== null && !seen.has(inspection)) {
    const child: DelegatedChild = {
      threadId: inspection,
      parentId: parent,
      primaryId: book.primary,
      taskId: inspection,
      inspection: true,
      resumed: false,
    };
    host.delegated(principal, child);
  }
}
