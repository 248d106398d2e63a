import type { ThreadRole } from '../../http/child-gate.js';
import { type WireParams, wireParams } from './wire.js';

interface LearnedThread {
  readonly threadId: string;
  readonly parentId: string;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/**
 * The threads of one Codex app-server run, as Codex itself reports them:
 * the primary thread (the one `thread/start` returned) and every thread a
 * known thread spawned, learned from the app server's own notifications.
 * Codex 0.171 announces a spawned agent in its parent thread as a
 * `subAgentActivity` item (multi-agent v2) or a `collabAgentToolCall` item
 * with `receiverThreadIds` (v1), and a thread it reports in `thread/started`
 * names its parent (`parentThreadId`, or `source.subAgent.thread_spawn`).
 * Only a known thread can make another one known; nothing a model writes
 * (tool arguments, messages) is read here.
 */
export class ThreadBook {
  private readonly parents = new Map<string, string>();
  private readonly active = new Set<string>();

  constructor(readonly primary: string) {}

  role(threadId: string): ThreadRole {
    if (threadId === this.primary) return 'primary';
    return this.parents.has(threadId) ? 'child' : 'unknown';
  }

  parentOf(threadId: string): string | null {
    return this.parents.get(threadId) ?? null;
  }

  /** Every child known so far. */
  children(): string[] {
    return [...this.parents.keys()];
  }

  private known(threadId: string | null): threadId is string {
    return threadId !== null && (threadId === this.primary || this.parents.has(threadId));
  }

  private add(threadId: string | null, parentId: string | null, out: LearnedThread[]): void {
    if (threadId === null || !this.known(parentId) || this.known(threadId)) return;
    this.parents.set(threadId, parentId);
    out.push({ threadId, parentId });
  }

  /** Reads one notification; returns the threads it made known. */
  learn(method: string, raw: unknown): LearnedThread[] {
    const out: LearnedThread[] = [];
    if (raw === null || typeof raw !== 'object') return out;
    const params = wireParams(raw);
    if (method === 'thread/started') {
      const t = params.thread ?? {};
      const spawn = t.source?.subAgent?.thread_spawn;
      this.add(str(t.id), str(t.parentThreadId) ?? str(spawn?.parent_thread_id), out);
    } else if (method === 'item/started' || method === 'item/completed') {
      const item = params.item ?? {};
      const parent = str(params.threadId);
      if (item.type === 'subAgentActivity') this.add(str(item.agentThreadId), parent, out);
      if (item.type === 'collabAgentToolCall' && Array.isArray(item.receiverThreadIds)) {
        const sender = str(item.senderThreadId) ?? parent;
        for (const r of item.receiverThreadIds) this.add(str(r), sender, out);
      }
    }
    this.track(method, params);
    return out;
  }

  /** Which threads of the run are working, from turn and status notifications. */
  private track(method: string, params: WireParams): void {
    const id = str(params.threadId);
    if (id === null || !this.known(id)) return;
    if (method === 'turn/started') this.active.add(id);
    else if (method === 'turn/completed') this.active.delete(id);
    else if (method === 'thread/status/changed') {
      if (params.status?.type === 'active') this.active.add(id);
      else this.active.delete(id);
    }
  }

  /** True while any thread of the run has a turn in progress. */
  busy(): boolean {
    return this.active.size > 0;
  }
}
