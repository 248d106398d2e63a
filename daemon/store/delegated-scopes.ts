import type { StoreContext } from './context.js';
import { storeDomain } from './domain.js';
import type { Migration } from './migrations.js';
import type { Caller } from './server-api.js';

const DELEGATED_SCOPES_MIGRATION: Migration = {
  id: '012_delegated_scopes',
  up(db) {
    db.exec(`
    CREATE TABLE delegated_sessions (
      server_id TEXT NOT NULL, agent_id TEXT NOT NULL, session_id TEXT NOT NULL,
      parent_id TEXT NOT NULL, task_id TEXT NOT NULL, kind TEXT NOT NULL, created_at INTEGER NOT NULL,
      PRIMARY KEY (server_id, agent_id, session_id)
    ) STRICT;
    CREATE INDEX delegated_sessions_by_session ON delegated_sessions (server_id, session_id);
    CREATE TABLE delegated_scope_tools (
      server_id TEXT NOT NULL, agent_id TEXT NOT NULL, session_id TEXT NOT NULL,
      tool TEXT NOT NULL, fingerprint TEXT NOT NULL,
      PRIMARY KEY (server_id, agent_id, session_id, tool)
    ) STRICT;
    `);
  },
};

/**
 * The bounds of saved delegated scopes: delegated sessions one agent may
 * have saved, and tools one session's scope may name (a session has one
 * scope, saved when it was delegated and never widened).
 */
const DELEGATION_LIMITS = { sessionsPerAgent: 256, toolsPerScope: 64 } as const;

/** A save past DELEGATION_LIMITS: refused whole, nothing written. */
export class DelegationLimitError extends Error {
  override name = 'DelegationLimitError';
  constructor(
    readonly limit: keyof typeof DELEGATION_LIMITS,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How a delegated session got its scope: `scoped` (tools named, possibly
 * none), `inspection` (an inspection task: never any client tool), `legacy`
 * (resumed from before scopes were saved: none).
 */
export type DelegationKind = 'scoped' | 'inspection' | 'legacy';

export interface ScopedTool {
  readonly name: string;
  readonly fingerprint: string;
}

export interface DelegatedSession {
  readonly agentId: string;
  readonly sessionId: string;
  readonly parentId: string;
  readonly taskId: string;
  readonly kind: DelegationKind;
  readonly createdAt: number;
  /** Sorted by name. */
  readonly tools: readonly ScopedTool[];
}

interface Raw {
  agent_id: string;
  session_id: string;
  parent_id: string;
  task_id: string;
  kind: DelegationKind;
  created_at: number;
}

const COLUMNS = 'agent_id, session_id, parent_id, task_id, kind, created_at';

/**
 * Saved delegated scopes, one per delegated session (a child thread the
 * daemon saw its runtime spawn) of an agent. A session is saved once: a
 * second save of the same session keeps the first (a resumed session keeps
 * the scope it was delegated with).
 */
export class DelegatedScopeStore {
  constructor(private readonly s: StoreContext) {}

  /** Whether `id` names a task of the store (a hand-granted scope's task must be one, never a typed label). */
  async taskExists(id: string): Promise<boolean> {
    return (await this.s.sql.get('SELECT 1 AS x FROM tasks WHERE id = ?', [id])) !== undefined;
  }

  /** Saves a session and its scope unless one is saved already; returns what is saved. */
  async save(
    c: Caller,
    d: Omit<DelegatedSession, 'agentId' | 'createdAt'>,
  ): Promise<DelegatedSession> {
    if (d.tools.length > DELEGATION_LIMITS.toolsPerScope)
      throw new DelegationLimitError(
        'toolsPerScope',
        `a delegated scope names at most ${DELEGATION_LIMITS.toolsPerScope} tools; this one names ${d.tools.length}`,
      );
    await this.s.sql.tx(async (q) => {
      const key = [c.serverId, c.agentId];
      const had = await q.get(
        'SELECT 1 AS x FROM delegated_sessions WHERE server_id = ? AND agent_id = ? AND session_id = ?',
        [...key, d.sessionId],
      );
      if (had) return;
      const n = await q.get<{ n: number }>(
        'SELECT count(*) AS n FROM delegated_sessions WHERE server_id = ? AND agent_id = ?',
        key,
      );
      if ((n?.n ?? 0) >= DELEGATION_LIMITS.sessionsPerAgent)
        throw new DelegationLimitError(
          'sessionsPerAgent',
          `agent ${c.agentId} already has ${DELEGATION_LIMITS.sessionsPerAgent} saved delegated sessions`,
        );
      await q.run(
        `INSERT INTO delegated_sessions (server_id, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [...key, d.sessionId, d.parentId, d.taskId, d.kind, this.s.now()],
      );
      for (const t of d.tools)
        await q.run(
          'INSERT INTO delegated_scope_tools (server_id, agent_id, session_id, tool, fingerprint) VALUES (?, ?, ?, ?, ?)',
          [...key, d.sessionId, t.name, t.fingerprint],
        );
    });
    return (await this.get(c, d.sessionId))!;
  }

  /** The agent's saved session, or null (never delegated here, or a legacy one never seen). */
  async get(c: Caller, sessionId: string): Promise<DelegatedSession | null> {
    const [one] = await this.read('server_id = ? AND agent_id = ? AND session_id = ?', [
      c.serverId,
      c.agentId,
      sessionId,
    ]);
    return one ?? null;
  }

  /** Every saved session (at most 256 per agent), or those of the session id named, oldest first. */
  list(sessionId?: string): Promise<DelegatedSession[]> {
    return sessionId === undefined
      ? this.read('1 = 1', [])
      : this.read('session_id = ?', [sessionId]);
  }

  /** Makes a saved session an inspection task: its scope names nothing any more. */
  async narrow(c: Caller, sessionId: string): Promise<void> {
    const key = [c.serverId, c.agentId, sessionId];
    await this.s.sql.tx(async (q) => {
      await q.run(
        "UPDATE delegated_sessions SET kind = 'inspection' WHERE server_id = ? AND agent_id = ? AND session_id = ?",
        key,
      );
      await q.run(
        'DELETE FROM delegated_scope_tools WHERE server_id = ? AND agent_id = ? AND session_id = ?',
        key,
      );
    });
  }

  private async read(where: string, params: string[]): Promise<DelegatedSession[]> {
    const rows = await this.s.sql.all<Raw>(
      `SELECT ${COLUMNS} FROM delegated_sessions WHERE ${where} ORDER BY created_at, agent_id, session_id`,
      params,
    );
    if (rows.length === 0) return [];
    const tools = await this.s.sql.all<{
      agent_id: string;
      session_id: string;
      tool: string;
      fingerprint: string;
    }>(
      `SELECT agent_id, session_id, tool, fingerprint FROM delegated_scope_tools WHERE ${where} ORDER BY tool`,
      params,
    );
    return rows.map((r) => ({
      agentId: r.agent_id,
      sessionId: r.session_id,
      parentId: r.parent_id,
      taskId: r.task_id,
      kind: r.kind,
      createdAt: r.created_at,
      tools: tools
        .filter((t) => t.agent_id === r.agent_id && t.session_id === r.session_id)
        .map((t) => ({ name: t.tool, fingerprint: t.fingerprint })),
    }));
  }
}

/** Saved delegated scopes: no catalog actions (agents never read them), two tables. */
export const delegatedScopeDomain = storeDomain(
  (ctx) => new DelegatedScopeStore(ctx),
  () => [],
  [DELEGATED_SCOPES_MIGRATION],
);
