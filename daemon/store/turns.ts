import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { turnGet, turnList } from '../../catalog/domains/turn.js';
import { LIMITS } from '../../catalog/limits.js';
import type { TurnError, TurnState } from '../../catalog/turns.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from './context.js';
import { storeDomain } from './domain.js';
import { createdAtPage, type Condition } from './keyset-page.js';
import type { Caller } from './server-api.js';
import type { Sql } from './sql.js';
import { TurnSessions } from './turn-sessions.js';
import {
  claimedOf,
  insertTurn,
  TURN_COLUMNS,
  TURNS_MIGRATION,
  turnOf,
  type ClaimedTurn,
  type TurnRecord,
  type TurnRow,
} from './turn-rows.js';

/** What a message did to an agent's queue. */
interface Enqueued {
  readonly turn: TurnRecord;
  /** The message joined a turn already queued on the same target. */
  readonly joined: boolean;
}

interface Ending {
  readonly state: Extract<TurnState, 'succeeded' | 'failed' | 'cancelled' | 'interrupted'>;
  readonly error?: TurnError | null;
  /** What the person should read beside the code (the path looked for, the working directory). */
  readonly errorDetail?: string | null;
  readonly exitStatus?: number | null;
  readonly replied?: boolean | null;
}

const SELECT = `SELECT ${TURN_COLUMNS} FROM turns`;

/** An error detail is one short line the daemon wrote (never runtime output): at most this many characters. */
const TURN_DETAIL_CHARS = 300;

/** The operator reads as `operator`; a runtime only sees its own agent's turns. */
const OPERATOR = 'operator';

/**
 * Turns in the team store. Every change that depends on an agent's queue
 * (enqueue, claim) runs under a lock per agent (`lockKey`), so on a shared
 * PostgreSQL two daemons never claim one turn and a message never joins a
 * turn another has just started. That lock is all the ordering they need
 * (`lockOnly`: other agents' queues never make them run again); statements
 * outside it (finish, cancel, heartbeat, interrupt), and the locked ones
 * they may race, name the state they expect in their WHERE.
 */
export class TurnStore {
  /** The runtime session each agent last used on each target (what the next turn resumes). */
  readonly sessions: TurnSessions;

  constructor(private readonly s: StoreContext) {
    this.sessions = new TurnSessions(s);
  }

  private lock(serverId: string, agentId: string) {
    return { lockKey: `turns:${serverId}:${agentId}`, lockOnly: true };
  }

  /**
   * Queues `messageId` for the agent: joins its queued turn on `target`, or
   * queues a new one. With `pinnedTo` (a stdio session's run) the turn is its
   * own, never joined, and only that daemon claims it.
   */
  enqueue(
    serverId: string,
    agentId: string,
    target: string,
    messageId: string,
    queueLimit: number,
    pinnedTo: string | null = null,
  ): Promise<Enqueued> {
    return this.s.sql.tx(
      async (q) => {
        const now = this.s.now();
        const open = pinnedTo
          ? undefined
          : await q.get<TurnRow>(
              `${SELECT} WHERE server_id = ? AND agent_id = ? AND target = ? AND state = 'queued' AND claimed_by IS NULL AND message_count < ? ORDER BY created_at DESC, id DESC LIMIT 1`,
              [serverId, agentId, target, LIMITS.turnMessages],
            );
        if (open) {
          const ids = [...(JSON.parse(open.message_ids) as string[]), messageId];
          // Still queued: a person may have cancelled it since.
          const row = await q.get<TurnRow>(
            `UPDATE turns SET message_ids = ?, message_count = ? WHERE id = ? AND state = 'queued' RETURNING ${TURN_COLUMNS}`,
            [JSON.stringify(ids), ids.length, open.id],
          );
          if (row) return { turn: turnOf(row), joined: true };
        }
        const queued = await q.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM turns WHERE server_id = ? AND agent_id = ? AND state = 'queued'",
          [serverId, agentId],
        );
        const full = Number(queued?.n ?? 0) >= queueLimit;
        const row = await insertTurn(q, {
          serverId,
          agentId,
          target,
          messageIds: [messageId],
          state: full ? 'dropped' : 'queued',
          error: full ? 'queue_full' : null,
          retryOf: null,
          now,
          pinnedTo,
        });
        return { turn: turnOf(row), joined: false };
      },
      this.lock(serverId, agentId),
    );
  }

  /**
   * Claims the agent's oldest queued turn for `owner` when the agent runs
   * fewer than `maxRunning` turns and none on that turn's target (a queued
   * turn pinned to another daemon is not its to claim); null when none is.
   */
  claim(
    serverId: string,
    agentId: string,
    owner: string,
    maxRunning: number,
  ): Promise<ClaimedTurn | null> {
    return this.s.sql.tx(
      async (q) => {
        const running = await q.all<{ target: string }>(
          "SELECT target FROM turns WHERE server_id = ? AND agent_id = ? AND state = 'running'",
          [serverId, agentId],
        );
        if (running.length >= maxRunning) return null;
        const busy = running.map((r) => r.target);
        const busyClause = busy.length
          ? ` AND target NOT IN (${busy.map(() => '?').join(', ')})`
          : '';
        for (;;) {
          const next = await q.get<{ id: string }>(
            `SELECT id FROM turns WHERE server_id = ? AND agent_id = ? AND state = 'queued' AND (claimed_by IS NULL OR claimed_by = ?)${busyClause} ORDER BY created_at, id LIMIT 1`,
            [serverId, agentId, owner, ...busy],
          );
          if (!next) return null;
          const now = this.s.now();
          // Still queued: a person may have cancelled it since; then the next one.
          const row = await q.get<TurnRow>(
            `UPDATE turns SET state = 'running', claimed_by = ?, heartbeat_at = ?, started_at = ? WHERE id = ? AND state = 'queued' RETURNING ${TURN_COLUMNS}`,
            [owner, now, now, next.id],
          );
          if (row) return claimedOf(row);
        }
      },
      this.lock(serverId, agentId),
    );
  }

  /** The (server, agent) pairs with queued turns among `agents` (every agent when null). */
  async waiting(agents: readonly string[]): Promise<{ serverId: string; agentId: string }[]> {
    if (agents.length === 0) return [];
    const rows = await this.s.sql.all<{ server_id: string; agent_id: string }>(
      `SELECT DISTINCT server_id, agent_id FROM turns WHERE state = 'queued' AND agent_id IN (${agents.map(() => '?').join(', ')})`,
      agents,
    );
    return rows.map((r) => ({ serverId: r.server_id, agentId: r.agent_id }));
  }

  /** Records the runtime session a running turn started or resumed. */
  async started(id: string, sessionId: string | null, resumed: boolean): Promise<void> {
    await this.s.sql.run('UPDATE turns SET session_id = ?, resumed = ? WHERE id = ?', [
      sessionId,
      resumed ? 1 : 0,
      id,
    ]);
  }

  /** Ends a running turn of `owner`; null when it was not running there (already ended). */
  async finish(id: string, owner: string, end: Ending): Promise<ClaimedTurn | null> {
    const row = await this.s.sql.get<TurnRow>(
      `UPDATE turns SET state = ?, error = ?, error_detail = ?, exit_status = ?, replied = ?, finished_at = ? WHERE id = ? AND state = 'running' AND claimed_by = ? RETURNING ${TURN_COLUMNS}`,
      [
        end.state,
        end.error ?? null,
        end.errorDetail === undefined || end.errorDetail === null
          ? null
          : Array.from(end.errorDetail).slice(0, TURN_DETAIL_CHARS).join(''),
        end.exitStatus ?? null,
        end.replied === undefined || end.replied === null ? null : end.replied ? 1 : 0,
        this.s.now(),
        id,
        owner,
      ],
    );
    return row ? claimedOf(row) : null;
  }

  /** Cancels a queued turn (a person, or `shutdown` when its app went away); null when it is not queued (running turns are stopped by their runner). */
  async cancelQueued(
    serverId: string,
    id: string,
    reason: 'cancelled' | 'shutdown' = 'cancelled',
  ): Promise<ClaimedTurn | null> {
    const row = await this.s.sql.get<TurnRow>(
      `UPDATE turns SET state = 'cancelled', error = ?, finished_at = ? WHERE server_id = ? AND id = ? AND state = 'queued' RETURNING ${TURN_COLUMNS}`,
      [reason, this.s.now(), serverId, id],
    );
    return row ? claimedOf(row) : null;
  }

  /** Keeps `owner`'s running turns alive; answers the ids it still holds (another daemon may have interrupted one). */
  async heartbeat(owner: string): Promise<Set<string>> {
    const rows = await this.s.sql.all<{ id: string }>(
      "UPDATE turns SET heartbeat_at = ? WHERE state = 'running' AND claimed_by = ? RETURNING id",
      [this.s.now(), owner],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Marks interrupted the running turns of `owner` (this daemon, at start:
   * whatever it ran before it stopped) and those whose heartbeat is older
   * than `staleBefore` (a daemon that died), and the queued turns pinned to
   * `owner` (stdio runs whose app went with the daemon). Never re-queued:
   * their side effects may have happened.
   */
  async interrupt(owner: string, staleBefore: number): Promise<ClaimedTurn[]> {
    const rows = await this.s.sql.all<TurnRow>(
      `UPDATE turns SET state = 'interrupted', error = 'daemon_stopped', finished_at = ? WHERE (state = 'running' AND (claimed_by = ? OR heartbeat_at < ?)) OR (state = 'queued' AND claimed_by = ?) RETURNING ${TURN_COLUMNS}`,
      [this.s.now(), owner, staleBefore, owner],
    );
    return rows.map(claimedOf);
  }

  /** A new queued turn for the same agent, target and messages as an ended one. */
  retry(serverId: string, id: string): Promise<TurnRecord> {
    return this.s.sql.tx(async (q) => {
      const old = await this.row(q, serverId, id);
      if (old.state === 'queued' || old.state === 'running') {
        throw new ExecError(
          'invalid_transition',
          `turn ${id} is ${old.state}; retry an ended turn`,
        );
      }
      const row = await insertTurn(q, {
        serverId,
        agentId: old.agent_id,
        target: old.target,
        messageIds: JSON.parse(old.message_ids) as string[],
        state: 'queued',
        error: null,
        retryOf: old.id,
        now: this.s.now(),
      });
      return turnOf(row);
    });
  }

  async find(serverId: string, id: string): Promise<ClaimedTurn> {
    return claimedOf(await this.row(this.s.sql, serverId, id));
  }

  async get(c: Caller, input: InputOf<typeof turnGet>): Promise<OutputOf<typeof turnGet>> {
    const row = await this.row(this.s.sql, c.serverId, input.id);
    if (c.agentId !== OPERATOR && row.agent_id !== c.agentId)
      throw new ExecError('not_found', `no turn ${input.id}`);
    return { turn: turnOf(row) };
  }

  async list(c: Caller, input: InputOf<typeof turnList>): Promise<OutputOf<typeof turnList>> {
    const agent = c.agentId === OPERATOR ? input.agent : c.agentId;
    const where: Condition[] = [['server_id = ?', c.serverId]];
    if (agent !== undefined) where.push(['agent_id = ?', agent]);
    if (input.state !== undefined) where.push(['state = ?', input.state]);
    const { items, ...more } = await createdAtPage<TurnRow>(
      this.s.sql,
      this.s.cursors,
      { action: 'turn/list', scope: c.serverId, filter: { agent, state: input.state } },
      input,
      SELECT,
      where,
    );
    return { turns: items.map(turnOf), ...more };
  }

  private async row(q: Sql, serverId: string, id: string): Promise<TurnRow> {
    const row = await q.get<TurnRow>(`${SELECT} WHERE server_id = ? AND id = ?`, [serverId, id]);
    if (!row) throw new ExecError('not_found', `no turn ${id}`);
    return row;
  }
}

export const turnDomain = storeDomain(
  (ctx) => new TurnStore(ctx),
  (on) => [on(turnList, (s, c, i) => s.list(c, i)), on(turnGet, (s, c, i) => s.get(c, i))],
  [TURNS_MIGRATION],
);
