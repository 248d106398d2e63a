import type { OutputOf } from '../../catalog/descriptor.js';
import type { approvalGet } from '../../catalog/domains/approval.js';
import { isoTime } from './ids.js';
import type { Migration } from './migrations.js';

export type Approval = OutputOf<typeof approvalGet>['approval'];
type Native = NonNullable<Approval['native']>;

/**
 * A runtime's own requests (Codex's command and file-change approvals,
 * Claude Code's permission prompt) join the same table: who asked (runtime,
 * turn, thread or subagent, delegated), what (the masked, bounded view as
 * JSON), and the scope an approval was given. The two final states a person
 * can reach are named `approved` and `denied` for both kinds of request.
 */
export const NATIVE_APPROVALS_MIGRATION: Migration = {
  id: '013_native_approvals',
  up(db) {
    db.exec(`
    ALTER TABLE approvals ADD COLUMN runtime TEXT;
    ALTER TABLE approvals ADD COLUMN lease_id TEXT;
    ALTER TABLE approvals ADD COLUMN turn_id TEXT;
    ALTER TABLE approvals ADD COLUMN thread_id TEXT;
    ALTER TABLE approvals ADD COLUMN subagent_id TEXT;
    ALTER TABLE approvals ADD COLUMN delegated INTEGER;
    ALTER TABLE approvals ADD COLUMN kind TEXT;
    ALTER TABLE approvals ADD COLUMN native_view TEXT;
    ALTER TABLE approvals ADD COLUMN scope TEXT;
    CREATE INDEX approvals_pending_by_turn ON approvals (turn_id) WHERE status = 'pending';
    `);
    db.prepare("UPDATE approvals SET status = 'denied' WHERE status = 'rejected'").run();
  },
};

export interface ApprovalRow {
  id: string;
  server_id: string;
  requested_by: string;
  title: string;
  detail: string;
  status: Approval['status'];
  decided_by: string | null;
  note: string | null;
  decided_at: number | null;
  expires_at: number;
  revision: number;
  created_at: number;
  updated_at: number;
  runtime: string | null;
  lease_id: string | null;
  turn_id: string | null;
  thread_id: string | null;
  subagent_id: string | null;
  delegated: number | null;
  kind: Native['kind'] | null;
  native_view: string | null;
  scope: Native['scope'];
}

/** The status as of `now`: a pending request past its expiry reads as expired (no timer has to write it). */
export const EFFECTIVE =
  "CASE WHEN status = 'pending' AND expires_at <= ? THEN 'expired' ELSE status END";

export const COLUMNS = `id, server_id, requested_by, title, detail, ${EFFECTIVE} AS status, decided_by, note, decided_at, expires_at, revision, created_at, updated_at, runtime, lease_id, turn_id, thread_id, subagent_id, delegated, kind, native_view, scope`;

/** One row by id, whatever its server (the daemon's own reads). Parameters: now, id. */
export const ANY_SERVER = `SELECT ${COLUMNS} FROM approvals WHERE id = ?`;

export const approvalOf = (r: ApprovalRow): Approval => ({
  id: r.id,
  title: r.title,
  detail: r.detail,
  status: r.status,
  requestedBy: r.requested_by,
  decidedBy: r.decided_by,
  note: r.note,
  expiresAt: isoTime(r.expires_at),
  decidedAt: r.decided_at === null ? null : isoTime(r.decided_at),
  revision: r.revision,
  createdAt: isoTime(r.created_at),
  updatedAt: isoTime(r.updated_at),
  native:
    r.runtime === null
      ? null
      : {
          runtime: r.runtime,
          turnId: r.turn_id,
          threadId: r.thread_id,
          subagentId: r.subagent_id,
          delegated: r.delegated === 1,
          kind: r.kind ?? 'command',
          view: r.native_view === null ? {} : (JSON.parse(r.native_view) as Native['view']),
          scope: r.scope ?? null,
        },
});

/** A runtime's own request as the store files it (its view masked and bounded already). */
export interface NativeFiling {
  readonly serverId: string;
  readonly agentId: string;
  readonly title: string;
  /** How long it waits for a decision, from the moment it is filed (its expiry). */
  readonly waitMs: number;
  readonly leaseId: string;
  readonly native: Omit<Native, 'scope'>;
  /** Filed already settled: the agent's policy answered it, or its turn had ended. */
  readonly settled?: { status: 'approved' | 'denied' | 'cancelled'; by: string; note: string };
}

export const INSERT_NATIVE = `INSERT INTO approvals (id, server_id, requested_by, title, detail, status, decided_by, note, decided_at,
  expires_at, revision, created_at, updated_at, runtime, lease_id, turn_id, thread_id, subagent_id, delegated, kind, native_view, scope)
  VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** The daemon ends a pending request (its deadline passed, its turn ended), whatever its expiry. */
export const SET_END = `UPDATE approvals SET status = ?, decided_by = ?, note = ?, decided_at = ?, revision = revision + 1, updated_at = ?
  WHERE id = ? AND status = 'pending'`;
