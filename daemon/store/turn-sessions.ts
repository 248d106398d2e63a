import type { StoreContext } from './context.js';
import type { Caller } from './server-api.js';

/** The runtime session each agent last used on each target: what its next turn there resumes. */
export class TurnSessions {
  constructor(private readonly s: StoreContext) {}

  /** The session the agent's last turn on `target` used with `runtime`, if any. */
  async get(c: Caller, target: string, runtime: string): Promise<string | null> {
    const row = await this.s.sql.get<{ session_id: string }>(
      'SELECT session_id FROM turn_sessions WHERE server_id = ? AND agent_id = ? AND target = ? AND runtime = ?',
      [c.serverId, c.agentId, target, runtime],
    );
    return row?.session_id ?? null;
  }

  /** Forgets `sessionId` as the agent's session on `target` (the runtime no longer has it). */
  async forget(c: Caller, target: string, sessionId: string): Promise<void> {
    await this.s.sql.run(
      'DELETE FROM turn_sessions WHERE server_id = ? AND agent_id = ? AND target = ? AND session_id = ?',
      [c.serverId, c.agentId, target, sessionId],
    );
  }

  async save(c: Caller, target: string, runtime: string, sessionId: string): Promise<void> {
    await this.s.sql.run(
      'INSERT INTO turn_sessions (server_id, agent_id, target, runtime, session_id, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (server_id, agent_id, target) DO UPDATE SET runtime = excluded.runtime, session_id = excluded.session_id, updated_at = excluded.updated_at',
      [c.serverId, c.agentId, target, runtime, sessionId, this.s.now()],
    );
  }
}
