import type { Principal } from '../../auth/principal.js';
import type { DelegatedChild, ToolHost } from '../../tools/contracts.js';
import type { ThreadBook } from './threads.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Whether a thread as the app server describes it is an inspection task: Codex's review sub-agent, or an `explorer`. */
function isInspection(thread: Record<string, unknown>): boolean {
  const sub = obj(thread.source).subAgent;
  const role = obj(obj(sub).thread_spawn).agent_role ?? thread.agentRole;
  return sub === 'review' || role === 'explorer';
}

/** The thread `thread/started` reports as an inspection task, if it does. */
function inspectionOf(method: string, params: Record<string, unknown>): string | null {
  if (method !== 'thread/started') return null;
  const thread = obj(params.thread);
  return isInspection(thread) ? str(thread.id) : null;
}

/** How long the role of a new child may take to read before it counts as an inspection task. */
const READ_MS = 5_000;

/**
 * Whether a child is an inspection task, asked of the app server
 * (`thread/read`: the thread's `agentRole` and `source`), since Codex's
 * spawn announcement (`subAgentActivity`) names no role. An answer that
 * does not come, or is not a thread, counts as one: the child gets no
 * client tool.
 */
function readInspection(read: ReadThread, threadId: string): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((r) => {
    timer = setTimeout(() => r(true), READ_MS);
    timer.unref();
  });
  const asked = read(threadId).then(
    (r) => {
      const thread = obj(obj(r).thread);
      return thread.id !== threadId || isInspection(thread);
    },
    () => true,
  );
  return Promise.race([asked, late]).finally(() => clearTimeout(timer));
}

/** `thread/read` of one thread on the app server the run talks to. */
type ReadThread = (threadId: string) => Promise<unknown>;

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
  read: ReadThread,
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
      inspection: inspection === t.threadId || readInspection(read, t.threadId),
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
