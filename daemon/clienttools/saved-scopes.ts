import type { Principal } from '../auth/principal.js';
import type { DelegatedChild } from '../tools/contracts.js';
import type { CallContext } from '../tools/registry.js';
import {
  DelegationLimitError,
  type DelegatedScopeStore,
  type DelegatedSession,
  type DelegationKind,
  type ScopedTool,
} from '../store/delegated-scopes.js';

interface SavedScopesDeps {
  readonly store: DelegatedScopeStore;
  /** The client tools the agent sees right now (its profile's denyTools taken out), with their fingerprints. */
  readonly visible: (principal: Principal) => ScopedTool[];
  readonly log: (message: string) => void;
}

const keyOf = (serverId: string, agentId: string, threadId: string) =>
  `${serverId}\u0000${agentId}\u0000${threadId}`;

const same = (a: ScopedTool, b: ScopedTool) => a.name === b.name && a.fingerprint === b.fingerprint;

/**
 * Saved delegated scopes, written when a driver sees its runtime delegate
 * (daemon/store/delegated-scopes.ts holds them, so they outlive the run and
 * the daemon). What a new child is given:
 * - a child of the primary thread: every client tool the agent sees at that
 *   moment (the profile's denyTools already taken out), by name and fingerprint;
 * - a child of a child: what its parent's scope names that is still offered
 *   with the same fingerprint;
 * - an inspection task: nothing, whatever the tools say of themselves;
 * - a thread resumed from an earlier delegation that has no saved scope
 *   (a legacy session): nothing.
 * A session saved once keeps its scope when it is resumed; only an
 * inspection notice narrows it (to nothing). A save past the store's bounds
 * is logged and leaves the child without a scope.
 */
export class SavedScopes {
  /** Saves under way, by session: a call from the child waits for its own. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly deps: SavedScopesDeps) {}

  record(principal: Principal, child: DelegatedChild): Promise<void> {
    const key = keyOf(principal.serverId, principal.agentId, child.threadId);
    const parentKey = keyOf(principal.serverId, principal.agentId, child.parentId);
    const before = Promise.all([this.pending.get(key), this.pending.get(parentKey)]);
    const done = before
      .then(() => this.save(principal, child))
      .catch((err: unknown) => {
        const why = err instanceof DelegationLimitError ? err.message : String(err);
        this.deps.log(`delegated thread ${child.threadId}: no scope saved: ${why}`);
      });
    this.pending.set(key, done);
    void done.then(() => {
      if (this.pending.get(key) === done) this.pending.delete(key);
    });
    return done;
  }

  private async save(principal: Principal, child: DelegatedChild): Promise<void> {
    const c = { serverId: principal.serverId, agentId: principal.agentId };
    const { store } = this.deps;
    const inspection = await child.inspection;
    const had = await store.get(c, child.threadId);
    if (had) {
      if (inspection && had.kind !== 'inspection') await store.narrow(c, child.threadId);
      return;
    }
    let kind: DelegationKind = 'scoped';
    let tools: ScopedTool[] = [];
    if (inspection) kind = 'inspection';
    else if (child.resumed) kind = 'legacy';
    else {
      const now = this.deps.visible(principal);
      if (child.parentId === child.primaryId) tools = now;
      else {
        const parent = await store.get(c, child.parentId);
        const kept = parent?.kind === 'scoped' ? parent.tools : [];
        tools = now.filter((t) => kept.some((p) => same(p, t)));
      }
    }
    await store.save(c, {
      sessionId: child.threadId,
      parentId: child.parentId,
      taskId: child.taskId,
      kind,
      tools,
    });
  }

  /** The saved session of the call's thread, once any save of it is done; null without one. */
  async of(ctx: CallContext): Promise<DelegatedSession | null> {
    if (ctx.threadId === null) return null;
    const p = ctx.principal;
    await this.pending.get(keyOf(p.serverId, p.agentId, ctx.threadId));
    return this.deps.store.get(p, ctx.threadId);
  }
}

/** Whether a saved session lets its thread call `tool` as it is now (name and fingerprint). */
export function scopeAllows(s: DelegatedSession, tool: ScopedTool): boolean {
  return s.kind === 'scoped' && s.tools.some((t) => same(t, tool));
}
