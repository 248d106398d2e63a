import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { storeDomain } from './domain.js';
import {
  approvalDecide,
  approvalGet,
  approvalList,
  approvalRequest,
} from '../../catalog/domains/approval.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from './context.js';
import { isoTime, newId } from './ids.js';
import { createdAtPage, type Condition } from './keyset-page.js';
import type { Migration } from './migrations.js';
import type { Caller } from './server-api.js';
import type { Sql, SqlTx } from './sql.js';
import {
  type Approval,
  type ApprovalRow as Row,
  ANY_SERVER,
  approvalOf,
  COLUMNS,
  EFFECTIVE,
  NATIVE_APPROVALS_MIGRATION,
} from './approval-rows.js';
import { NativeRequests } from './native-requests.js';

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

const DEFAULT_APPROVAL_TTL_S = 24 * 3600;

type Out = { approval: Approval };
type Decision = 'approve' | 'reject';

/** Parameters: now, id, server id. */
const BY_ID = `SELECT ${COLUMNS} FROM approvals WHERE id = ? AND server_id = ?`;
const INSERT = `INSERT INTO approvals (id, server_id, requested_by, title, detail, status, expires_at, revision, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, 'pending', ?, 1, ?, ?)`;
/** The first decider wins: only a pending, unexpired row changes. */
const SET_DECISION = `UPDATE approvals SET status = ?, decided_by = ?, note = ?, scope = ?, decided_at = ?, revision = revision + 1, updated_at = ?
  WHERE id = ? AND status = 'pending' AND expires_at > ?`;
/**
 * Approvals: an agent asks, or a runtime asks on its own (its permission
 * prompt, filed by the daemon); a person (or, for an agent's request,
 * another agent) decides once: the first decision wins by a conditional
 * update, a later one is already_decided. Expiry is evaluated against the
 * injected clock on every read and decision, so an expired request is
 * reported as such the moment it expires.
 */
export class ApprovalStore {
  /** A runtime's own requests: filed by the daemon, ended by its deadline or its turn. */
  readonly native: NativeRequests;

  constructor(private readonly s: StoreContext) {
    this.native = new NativeRequests(s);
  }

  request(c: Caller, input: InputOf<typeof approvalRequest>): Promise<Out> {
    return this.s.idempotency.run(c, 'approval/request', input, async (q) => {
      const now = this.s.now();
      const id = newId('appr');
      const expires = now + (input.expiresInSeconds ?? DEFAULT_APPROVAL_TTL_S) * 1000;
      await q.run(INSERT, [
        id,
        c.serverId,
        `agent:${c.agentId}`,
        input.title,
        input.detail ?? '',
        expires,
        now,
        now,
      ]);
      const approval = approvalOf((await q.get<Row>(BY_ID, [now, id, c.serverId]))!);
      this.s.notices.after(q, { kind: 'approval.requested', serverId: c.serverId, approval });
      return { approval };
    });
  }

  async get(c: Caller, input: InputOf<typeof approvalGet>): Promise<Out> {
    return { approval: approvalOf(await this.row(this.s.sql, c.serverId, input.id)) };
  }

  private async row(q: Sql, serverId: string | null, id: string): Promise<Row> {
    const now = this.s.now();
    const row =
      serverId === null
        ? await q.get<Row>(ANY_SERVER, [now, id])
        : await q.get<Row>(BY_ID, [now, id, serverId]);
    if (!row)
      throw new ExecError('not_found', `approval ${id} not found`, {
        hint: 'List approvals with approval list.',
      });
    return row;
  }

  async list(
    c: Caller,
    input: InputOf<typeof approvalList>,
  ): Promise<OutputOf<typeof approvalList>> {
    const now = this.s.now();
    const where: Condition[] = [['server_id = ?', c.serverId]];
    if (input.status !== undefined) where.push([`${EFFECTIVE} = ?`, now, input.status]);
    const { items, ...more } = await createdAtPage<Row>(
      this.s.sql,
      this.s.cursors,
      { action: 'approval/list', scope: c.serverId, filter: { status: input.status } },
      input,
      `SELECT ${COLUMNS} FROM approvals`,
      where,
      [now],
    );
    return { approvals: items.map(approvalOf), ...more };
  }

  /** An agent decides: never its own request, never a runtime's own request. */
  decide(c: Caller, input: InputOf<typeof approvalDecide>): Promise<Out> {
    return this.s.idempotency.run(c, 'approval/decide', input, async (q) => {
      const row = await this.row(q, c.serverId, input.id);
      if (row.runtime !== null) {
        throw new ExecError('forbidden', "a runtime's own request is decided by a person", {
          hint: 'A person decides it with agentteam approval decide or on the console.',
        });
      }
      if (row.requested_by === `agent:${c.agentId}`) {
        throw new ExecError('forbidden', 'an agent cannot decide its own approval request', {
          hint: 'Wait for a person to decide; poll approval get.',
        });
      }
      return this.apply(q, row, input.decision, input.note ?? null, `agent:${c.agentId}`, null);
    });
  }

  /** A person decides through the operator API; the id alone names the request. */
  decideAsOperator(
    id: string,
    decision: Decision,
    note: string | null,
    decidedBy: string,
    scope: 'once' | 'turn' | null = null,
  ): Promise<Out> {
    return this.s.sql.tx(async (q) =>
      this.apply(q, await this.row(q, null, id), decision, note, decidedBy, scope),
    );
  }

  /** The operator's view of one request on any server. */
  async getAsOperator(id: string): Promise<Out> {
    return { approval: approvalOf(await this.row(this.s.sql, null, id)) };
  }

  async serverOf(id: string): Promise<string | null> {
    const row = await this.s.sql.get<{ server_id: string }>(
      'SELECT server_id FROM approvals WHERE id = ?',
      [id],
    );
    return row?.server_id ?? null;
  }

  /** How many requests wait for a decision on each server that has any (at most `limit` servers, by name). */
  async pendingAsOperator(limit: number): Promise<{ serverId: string; pending: number }[]> {
    const rows = await this.s.sql.all<{ server_id: string; n: number }>(
      "SELECT server_id, COUNT(*) AS n FROM approvals WHERE status = 'pending' AND expires_at > ? GROUP BY server_id ORDER BY server_id LIMIT ?",
      [this.s.now(), limit],
    );
    return rows.map((r) => ({ serverId: r.server_id, pending: Number(r.n) }));
  }

  async serversAsOperator(limit: number): Promise<string[]> {
    const rows = await this.s.sql.all<{ server_id: string }>(
      'SELECT DISTINCT server_id FROM approvals ORDER BY server_id LIMIT ?',
      [limit],
    );
    return rows.map((r) => r.server_id);
  }

  private async apply(
    q: SqlTx,
    row: Row,
    decision: Decision,
    note: string | null,
    by: string,
    scope: 'once' | 'turn' | null,
  ): Promise<Out> {
    const now = this.s.now();
    const changed =
      row.status === 'pending'
        ? await q.run(SET_DECISION, [
            decision === 'approve' ? 'approved' : 'denied',
            by,
            note,
            row.runtime !== null && decision === 'approve' ? (scope ?? 'once') : null,
            now,
            now,
            row.id,
            now,
          ])
        : { changes: 0 };
    const after = await this.row(q, row.server_id, row.id);
    if (changed.changes === 0) {
      if (after.status === 'expired') {
        throw new ExecError(
          'expired',
          `approval ${row.id} expired at ${isoTime(after.expires_at)} without a decision`,
          { hint: 'Ask again with approval request if it is still needed.' },
        );
      }
      const who = after.decided_by === null ? '' : ` by ${after.decided_by}`;
      throw new ExecError(
        'already_decided',
        `approval ${row.id} was already ${after.status}${who}`,
        {
          hint: 'The first decision stands; read it with approval get.',
        },
      );
    }
    const approval = approvalOf(after);
    this.s.notices.after(q, { kind: 'approval.decided', serverId: row.server_id, approval });
    return { approval };
  }
}

/** The approval domain of the team server; people decide through ApprovalOperatorApi. */
export const approvalDomain = storeDomain(
  (ctx) => new ApprovalStore(ctx),
  (on) => [
    on(approvalRequest, (s, c, i) => s.request(c, i)),
    on(approvalGet, (s, c, i) => s.get(c, i)),
    on(approvalList, (s, c, i) => s.list(c, i)),
    on(approvalDecide, (s, c, i) => s.decide(c, i)),
  ],
  [NATIVE_APPROVALS_MIGRATION],
);
