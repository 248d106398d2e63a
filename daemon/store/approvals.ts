import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { approvalDecide, approvalGet, approvalList, approvalRequest } from '../../catalog/domains/approval.js';
import { ExecError } from '../errors.js';
import type { StoreContext } from './context.js';
import { isoTime, newId } from './ids.js';
import { createdAtQueries, keysetPage, type CreatedPageQueries } from './keyset-page.js';
import type { Migration } from './migrations.js';
import type { Caller } from './server-api.js';

export const APPROVALS_MIGRATION: Migration = {
  id: '004_approvals',
  up(db) {
    db.exec(`
    CREATE TABLE approvals (
      id TEXT PRIMARY KEY, server_id TEXT NOT NULL, requested_by TEXT NOT NULL,
      title TEXT NOT NULL, detail TEXT NOT NULL, status TEXT NOT NULL,
      decided_by TEXT, note TEXT, decided_at INTEGER, expires_at INTEGER NOT NULL,
      revision INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX approvals_by_created ON approvals (server_id, created_at DESC, id DESC);
    `);
  },
};

export const DEFAULT_APPROVAL_TTL_S = 24 * 3600;

type Approval = OutputOf<typeof approvalGet>['approval'];
type Out = { approval: Approval };
export type Decision = 'approve' | 'reject';

interface Row {
  id: string; server_id: string; requested_by: string; title: string; detail: string; status: Approval['status'];
  decided_by: string | null; note: string | null; decided_at: number | null; expires_at: number;
  revision: number; created_at: number; updated_at: number;
}

/** The status as of `now`: a pending request past its expiry reads as expired (no timer has to write it). */
const EFFECTIVE = "CASE WHEN status = 'pending' AND expires_at <= ? THEN 'expired' ELSE status END";

const approvalOf = (r: Row): Approval => ({
  id: r.id, title: r.title, detail: r.detail, status: r.status, requestedBy: r.requested_by,
  decidedBy: r.decided_by, note: r.note, expiresAt: isoTime(r.expires_at),
  decidedAt: r.decided_at === null ? null : isoTime(r.decided_at),
  revision: r.revision, createdAt: isoTime(r.created_at), updatedAt: isoTime(r.updated_at),
});

/**
 * Approvals: an agent asks, a person (or another agent) decides once. Expiry
 * is evaluated against the injected clock on every read and decision, so an
 * expired request is reported as such the moment it expires.
 */
export class ApprovalStore {
  private readonly byId;
  private readonly anyServer;
  private readonly insert;
  private readonly setDecision;
  private readonly lists = new Map<string, CreatedPageQueries<Row>>();

  constructor(private readonly s: StoreContext) {
    const cols = `id, server_id, requested_by, title, detail, ${EFFECTIVE} AS status, decided_by, note, decided_at, expires_at, revision, created_at, updated_at`;
    this.byId = s.db.prepare<[number, string, string], Row>(`SELECT ${cols} FROM approvals WHERE id = ? AND server_id = ?`);
    this.anyServer = s.db.prepare<[number, string], Row>(`SELECT ${cols} FROM approvals WHERE id = ?`);
    this.insert = s.db.prepare(
      `INSERT INTO approvals (id, server_id, requested_by, title, detail, status, expires_at, revision, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, 1, ?, ?)`,
    );
    this.setDecision = s.db.prepare(
      `UPDATE approvals SET status = ?, decided_by = ?, note = ?, decided_at = ?, revision = revision + 1, updated_at = ?
       WHERE id = ? AND status = 'pending' AND expires_at > ?`,
    );
    this.cols = cols;
  }

  private readonly cols: string;

  request(c: Caller, input: InputOf<typeof approvalRequest>): Out {
    return this.s.legacyIdempotency.run(c, 'approval/request', input, () => {
      const now = this.s.now();
      const id = newId('appr');
      const expires = now + (input.expiresInSeconds ?? DEFAULT_APPROVAL_TTL_S) * 1000;
      this.insert.run(id, c.serverId, `agent:${c.agentId}`, input.title, input.detail ?? '', expires, now, now);
      return { approval: approvalOf(this.byId.get(now, id, c.serverId)!) };
    });
  }

  get(c: Caller, input: InputOf<typeof approvalGet>): Out {
    return { approval: approvalOf(this.row(c.serverId, input.id)) };
  }

  private row(serverId: string | null, id: string): Row {
    const now = this.s.now();
    const row = serverId === null ? this.anyServer.get(now, id) : this.byId.get(now, id, serverId);
    if (!row) throw new ExecError('not_found', `approval ${id} not found`, { hint: 'List approvals with approval list.' });
    return row;
  }

  list(c: Caller, input: InputOf<typeof approvalList>): OutputOf<typeof approvalList> {
    const now = this.s.now();
    const key = input.status === undefined ? 'all' : 'status';
    const q = createdAtQueries<Row>(this.s.db, this.lists, `SELECT ${this.cols} FROM approvals`, `server_id = ?${key === 'status' ? ` AND ${EFFECTIVE} = ?` : ''}`);
    const args: unknown[] = key === 'status' ? [now, c.serverId, now, input.status] : [now, c.serverId];
    const { items, ...more } = keysetPage<Row>(
      this.s.cursors, { action: 'approval/list', scope: c.serverId, filter: { status: input.status } }, input,
      (r) => [r.created_at, r.id],
      (n) => q.first.all(...args, n),
      (at, id, n) => q.after.all(...args, at, at, id, n),
    );
    return { approvals: items.map(approvalOf), ...more };
  }

  /** An agent decides: never its own request. */
  decide(c: Caller, input: InputOf<typeof approvalDecide>): Out {
    return this.s.legacyIdempotency.run(c, 'approval/decide', input, () => {
      const row = this.row(c.serverId, input.id);
      if (row.requested_by === `agent:${c.agentId}`) {
        throw new ExecError('forbidden', 'an agent cannot decide its own approval request', { hint: 'Wait for a person to decide; poll approval get.' });
      }
      return this.apply(row, input.decision, input.note ?? null, `agent:${c.agentId}`);
    });
  }

  /** A person decides through the operator API; the id alone names the request. */
  decideAsOperator(id: string, decision: Decision, note: string | null, decidedBy: string): Out {
    return this.s.db.transaction(() => this.apply(this.row(null, id), decision, note, decidedBy)).immediate();
  }

  /** The operator's view of one request on any server. */
  getAsOperator(id: string): Out {
    return { approval: approvalOf(this.row(null, id)) };
  }

  private apply(row: Row, decision: Decision, note: string | null, by: string): Out {
    if (row.status === 'expired') {
      throw new ExecError('expired', `approval ${row.id} expired at ${isoTime(row.expires_at)} without a decision`, {
        hint: 'Ask again with approval request if it is still needed.',
      });
    }
    if (row.status !== 'pending') throw new ExecError('invalid_transition', `approval ${row.id} was already ${row.status}`);
    const now = this.s.now();
    this.setDecision.run(decision === 'approve' ? 'approved' : 'rejected', by, note, now, now, row.id, now);
    return { approval: approvalOf(this.row(row.server_id, row.id)) };
  }
}
