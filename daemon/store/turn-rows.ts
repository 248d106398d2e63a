import type { OutputOf } from '../../catalog/descriptor.js';
import type { turnGet } from '../../catalog/domains/turn.js';
import type { TurnError, TurnState } from '../../catalog/turns.js';
import { isoTime, newId } from './ids.js';
import type { Sql } from './sql.js';
import type { Migration } from './migrations.js';

export type TurnRecord = OutputOf<typeof turnGet>['turn'];

/**
 * Turns and the runtime sessions they resume. A turn is claimed by one
 * daemon (`claimed_by`, this daemon's scope) and kept alive by its
 * heartbeat, so a daemon that died leaves turns another can mark
 * interrupted. `message_ids` is a JSON array, oldest first.
 */
export const TURNS_MIGRATION: Migration = {
  id: '008_turns',
  up(db) {
    db.exec(`
    CREATE TABLE turns (
      id TEXT PRIMARY KEY, server_id TEXT NOT NULL, agent_id TEXT NOT NULL, target TEXT NOT NULL,
      message_ids TEXT NOT NULL, message_count INTEGER NOT NULL, state TEXT NOT NULL, error TEXT, error_detail TEXT,
      exit_status INTEGER, replied INTEGER, session_id TEXT, resumed INTEGER NOT NULL,
      retry_of TEXT, claimed_by TEXT, heartbeat_at INTEGER,
      created_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER
    ) STRICT;
    CREATE INDEX turns_by_created ON turns (server_id, created_at DESC, id DESC);
    CREATE INDEX turns_by_agent_state ON turns (server_id, agent_id, state, created_at);
    CREATE INDEX turns_by_state ON turns (state, heartbeat_at);
    CREATE TABLE turn_sessions (
      server_id TEXT NOT NULL, agent_id TEXT NOT NULL, target TEXT NOT NULL,
      runtime TEXT NOT NULL, session_id TEXT NOT NULL, updated_at INTEGER NOT NULL,
      PRIMARY KEY (server_id, agent_id, target)
    ) STRICT;
    `);
  },
};

export const TURN_COLUMNS =
  'id, server_id, agent_id, target, message_ids, message_count, state, error, error_detail, exit_status, replied, session_id, resumed, retry_of, claimed_by, heartbeat_at, created_at, started_at, finished_at';

export interface TurnRow {
  id: string;
  server_id: string;
  agent_id: string;
  target: string;
  message_ids: string;
  message_count: number;
  state: TurnState;
  error: TurnError | null;
  error_detail: string | null;
  exit_status: number | null;
  replied: number | null;
  session_id: string | null;
  resumed: number;
  retry_of: string | null;
  claimed_by: string | null;
  heartbeat_at: number | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export function turnOf(r: TurnRow): TurnRecord {
  return {
    id: r.id,
    agentId: r.agent_id,
    target: r.target,
    messageIds: JSON.parse(r.message_ids) as string[],
    state: r.state,
    error: r.error,
    errorDetail: r.error_detail,
    exitStatus: r.exit_status,
    replied: r.replied === null ? null : r.replied === 1,
    sessionId: r.session_id,
    resumed: r.resumed === 1,
    retryOf: r.retry_of,
    createdAt: isoTime(r.created_at),
    startedAt: r.started_at === null ? null : isoTime(r.started_at),
    finishedAt: r.finished_at === null ? null : isoTime(r.finished_at),
  };
}

/** A turn as the runner holds it: the record plus the server it belongs to. */
export interface ClaimedTurn extends TurnRecord {
  readonly serverId: string;
}

export function claimedOf(r: TurnRow): ClaimedTurn {
  return { ...turnOf(r), serverId: r.server_id };
}

/** A turn to insert: queued (or dropped at once when the agent's queue is full). */
interface NewTurn {
  serverId: string;
  agentId: string;
  target: string;
  messageIds: string[];
  state: 'queued' | 'dropped';
  error: TurnError | null;
  retryOf: string | null;
  now: number;
  /** A queued turn only this daemon may claim (a stdio session's run): its `claimed_by` is set from the start. */
  pinnedTo?: string | null;
}

export async function insertTurn(q: Sql, t: NewTurn): Promise<TurnRow> {
  const row = await q.get<TurnRow>(
    `INSERT INTO turns (id, server_id, agent_id, target, message_ids, message_count, state, error, resumed, retry_of, claimed_by, created_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?) RETURNING ${TURN_COLUMNS}`,
    [
      newId('turn'),
      t.serverId,
      t.agentId,
      t.target,
      JSON.stringify(t.messageIds),
      t.messageIds.length,
      t.state,
      t.error,
      t.retryOf,
      t.pinnedTo ?? null,
      t.now,
      t.state === 'dropped' ? t.now : null,
    ],
  );
  return row!;
}
