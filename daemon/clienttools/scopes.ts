import type { CallContext } from '../tools/registry.js';
import { scopeAllows, type SavedScopes } from './saved-scopes.js';
import type { Delegation } from './types.js';

/**
 * Which client tools a delegated thread (a child of a runtime's primary
 * thread) may call, each pinned to a descriptor fingerprint. First the scope
 * the daemon saved when the driver saw the delegation (saved-scopes.ts, in
 * the store); for a runtime whose threads are only claimed by its calls
 * (no driver sees its spawns), a scope the operator granted by hand, kept in
 * memory per authorization, bounded, oldest dropped first (dropping fails
 * closed). None by default: a thread without a scope gets no client tool, and
 * a tool whose fingerprint changed (or that was withdrawn) is no longer the
 * tool the scope named.
 */

export const SCOPE_LIMITS = { scopes: 4096, toolsPerScope: 64 } as const;

interface SavedScope {
  readonly authorization_id: string;
  readonly thread_id: string;
  readonly task_id: string;
  /** tool name -> fingerprint */
  readonly tools: ReadonlyMap<string, string>;
}

const keyOf = (authorizationId: string, threadId: string) => `${authorizationId}\u0000${threadId}`;

export class DelegatedScopes {
  private readonly scopes = new Map<string, SavedScope>();
  private readonly watched = new WeakSet<AbortSignal>();

  constructor(private readonly saved: SavedScopes) {}

  save(scope: SavedScope): void {
    const key = keyOf(scope.authorization_id, scope.thread_id);
    this.scopes.delete(key);
    this.scopes.set(key, scope);
    while (this.scopes.size > SCOPE_LIMITS.scopes)
      this.scopes.delete(this.scopes.keys().next().value!);
  }

  get(authorizationId: string, threadId: string): SavedScope | undefined {
    return this.scopes.get(keyOf(authorizationId, threadId));
  }

  /** Whether the call's thread is a delegated one (identified and not the primary). */
  static delegated(ctx: CallContext): boolean {
    return ctx.threadId !== null && ctx.threadId !== ctx.principal.primaryThreadId;
  }

  /**
   * The delegation of a call from a delegated thread whose scope names `tool`
   * with `fingerprint`; null when the thread may not call it. A thread of a
   * runtime whose driver sees its threads is judged by its saved scope alone,
   * any other by the scope an operator granted its authorization.
   */
  async allows(ctx: CallContext, tool: string, fingerprint: string): Promise<Delegation | null> {
    // Saved scopes name threads a driver saw spawned: only such a runtime's calls are read against them
    // (a runtime whose threads only name themselves could otherwise claim another's child).
    if (ctx.principal.threadsByDriver === true) {
      const saved = await this.saved.of(ctx);
      return saved && scopeAllows(saved, { name: tool, fingerprint })
        ? { task_id: saved.taskId, subagent_id: saved.sessionId }
        : null;
    }
    const scope = this.get(ctx.principal.authorizationId, ctx.threadId ?? '');
    this.forgetOnRevoke(ctx);
    if (!scope || scope.tools.get(tool) !== fingerprint) return null;
    return { task_id: scope.task_id, subagent_id: ctx.threadId! };
  }

  /** The authorization's scopes go with it. */
  private forgetOnRevoke(ctx: CallContext): void {
    if (this.watched.has(ctx.signal)) return;
    this.watched.add(ctx.signal);
    const id = ctx.principal.authorizationId;
    ctx.signal.addEventListener(
      'abort',
      () => {
        for (const [k, s] of this.scopes) if (s.authorization_id === id) this.scopes.delete(k);
      },
      { once: true },
    );
  }
}
