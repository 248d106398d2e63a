import type { AuditEntry, AuditSummaryRow } from '../../catalog/audit.js';
import { pageLimit, pageOf, type CursorCodec, type Page } from './cursor.js';
import type { SqlStore, SqlValue } from './sql.js';
import { auditValues, entryOf, type AuditRecord, type AuditRow } from './audit-rows.js';
import { AUDIT_COLUMNS, auditInsertSql, TRIM_OLDER } from './audit-sql.js';
import {
  RETENTION_COUNTS,
  retentionDeletes,
  retentionPlan,
  retentionSelects,
  type RetentionGroup,
} from './audit-retention.js';

/** What the store asks of the embedded store's reading thread (audit-reader.ts has this shape). */
interface AuditRowReader {
  all<R>(sql: string, params?: readonly SqlValue[]): Promise<R[]>;
  get<R>(sql: string, params?: readonly SqlValue[]): Promise<R | undefined>;
  close(): Promise<void>;
}

/** What the store asks of the embedded store's writer thread (audit-writer.ts has this shape). */
interface AuditRowWriter {
  append(rows: readonly AuditRecord[]): Promise<void>;
  trim(maxRows: number, oldest: number): Promise<number>;
  close(): Promise<void>;
}

export interface AuditQuery {
  readonly serverId?: string | undefined;
  readonly agentId?: string | undefined;
  readonly tool?: string | undefined;
  readonly outcome?: string | undefined;
  /** Only the calls made in this turn. */
  readonly turnId?: string | undefined;
  /** The `--since` text as given (bound into the cursor) and the cutoff it means now. */
  readonly since?: { readonly text: string; readonly at: number } | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

/**
 * The sizes of INSERT statements a PostgreSQL batch is cut into, largest
 * first: a few fixed shapes, so each is prepared once (a statement per batch
 * size would prepare, and keep, a new one for almost every batch). 512 × 18
 * placeholders stays far within the driver's parameter limit.
 */
const STATEMENT_ROWS = [512, 128, 32, 8, 1] as const;

/** A batch stopped part way: the first `written` rows are committed, the rest are not. */
export class AuditAppendError extends Error {
  override name = 'AuditAppendError';
  constructor(
    readonly written: number,
    override readonly cause: unknown,
  ) {
    super('an audit batch was written only in part');
  }
}

/** Nearest-rank percentiles over a window, per key, in portable SQL (window functions exist in SQLite ≥ 3.25 and PostgreSQL). */
const summarySql = (key: 'tool' | 'agent_id', where: string) => `
  SELECT k, COUNT(*) AS calls, SUM(CASE WHEN outcome = 'ok' THEN 0 ELSE 1 END) AS errors,
    MIN(CASE WHEN rn * 100 >= n * 50 THEN duration_us END) AS p50,
    MIN(CASE WHEN rn * 100 >= n * 95 THEN duration_us END) AS p95
  FROM (SELECT ${key} AS k, outcome, duration_us,
      ROW_NUMBER() OVER (PARTITION BY ${key} ORDER BY duration_us) AS rn, COUNT(*) OVER (PARTITION BY ${key}) AS n
    FROM audit WHERE ${where}) ranked
  GROUP BY k ORDER BY calls DESC, k ASC LIMIT ?`;

/** At most this many lines per summary table (tools and agents are few; a bound all the same). */
const SUMMARY_MAX_KEYS = 200;

/** Calls and errors per minute since `since` (at most a day of minutes), oldest first; minutes without calls are absent. */
const MINUTES_MAX = 1440;

export class AuditStore {
  private readonly reads: Pick<AuditRowReader, 'all' | 'get'>;
  private changes = 0;

  /**
   * `writer` and `reader`: the embedded store's writer and reading threads
   * (audit-writer.ts, audit-reader.ts); appends and retention go through
   * the one, every read through the other, so no audit statement runs on
   * the request thread. Without them (a PostgreSQL store, whose driver does
   * its I/O off the thread anyway) they run here.
   */
  constructor(
    private readonly sql: SqlStore,
    private readonly cursors: CursorCodec,
    private readonly writer: AuditRowWriter | null = null,
    private readonly reader: AuditRowReader | null = null,
  ) {
    this.reads = reader ?? sql;
  }

  /**
   * Counts this daemon's changes to the trail (a batch written, even in
   * part; a retention run): a summary computed at one revision still holds
   * while it is the same. Other daemons on a shared store are not counted.
   */
  get revision(): number {
    return this.changes;
  }

  /** A store other daemons may write too (PostgreSQL), whose changes the revision does not count. */
  get shared(): boolean {
    return this.sql.dialect === 'postgres';
  }

  /**
   * Appends a batch without waiting for the disk: a batch acknowledges
   * nothing and may be lost in a crash anyway. With a writer thread (the
   * embedded store) it goes there; otherwise (PostgreSQL) it is one
   * transaction of a few multi-row statements of fixed sizes with
   * synchronous_commit=off, one round trip for the commit, and a failure
   * writes none of it. Throws AuditAppendError saying how many rows made it.
   */
  async append(rows: readonly AuditRecord[]): Promise<void> {
    try {
      await this.appendRows(rows);
    } finally {
      this.changes++;
    }
  }

  private async appendRows(rows: readonly AuditRecord[]): Promise<void> {
    if (this.writer) return this.writer.append(rows);
    try {
      await this.sql.tx(
        async (q) => {
          for (let at = 0; at < rows.length; ) {
            const n = STATEMENT_ROWS.find((size) => size <= rows.length - at)!;
            await q.run(auditInsertSql(n), rows.slice(at, at + n).flatMap(auditValues));
            at += n;
          }
        },
        { relaxedDurability: true },
      );
    } catch (err) {
      throw new AuditAppendError(0, err);
    }
  }

  /** One page newest first, filtered; the cursor binds the filters and the --since cutoff of page one. */
  async list(query: AuditQuery): Promise<Page<AuditEntry>> {
    const filter = {
      server: query.serverId ?? null,
      agent: query.agentId ?? null,
      tool: query.tool ?? null,
      outcome: query.outcome ?? null,
      since: query.since?.text ?? null,
      ...(query.turnId !== undefined ? { turn: query.turnId } : {}),
    };
    const binding = { action: 'audit/list', scope: 'operator', filter };
    const limit = pageLimit(query.limit);
    let cutoff = query.since?.at ?? 0;
    let before: number | null = null;
    if (query.cursor !== undefined) {
      const [seq, at] = this.cursors.decode(binding, query.cursor, ['number', 'number']) as [
        number,
        number,
      ];
      before = seq;
      cutoff = at;
    }
    const [where, args] = conditions(query, cutoff);
    if (before !== null) {
      where.push('seq < ?');
      args.push(before);
    }
    const rows = await this.reads.all<AuditRow>(
      `SELECT seq, ${AUDIT_COLUMNS} FROM audit WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`,
      [...args, limit + 1],
    );
    const page = pageOf(rows, limit, (r) => this.cursors.encode(binding, [r.seq, cutoff]));
    return { ...page, items: page.items.map(entryOf) };
  }

  /** Rows written after `seq`, oldest first (for --follow), with the same filters. */
  async after(query: AuditQuery, seq: number): Promise<AuditEntry[]> {
    const [where, args] = conditions(query, query.since?.at ?? 0);
    where.push('seq > ?');
    const rows = await this.reads.all<AuditRow>(
      `SELECT seq, ${AUDIT_COLUMNS} FROM audit WHERE ${where.join(' AND ')} ORDER BY seq ASC LIMIT ?`,
      [...args, seq, pageLimit(query.limit)],
    );
    return rows.map(entryOf);
  }

  /** The highest seq written so far (0 when empty): where a --follow without history starts. */
  async lastSeq(): Promise<number> {
    const r = await this.reads.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM audit');
    return r?.seq ?? 0;
  }

  /** The start of the oldest call since `since` (ms) that the filters keep, or null when there is none. */
  async oldest(
    since: number,
    filter: Pick<AuditQuery, 'serverId' | 'agentId' | 'tool'> = {},
  ): Promise<number | null> {
    const [where, args] = conditions(filter, since);
    const r = await this.reads.get<{ at: number | null }>(
      `SELECT MIN(at) AS at FROM audit WHERE ${where.join(' AND ')}`,
      args,
    );
    return r?.at === null || r?.at === undefined ? null : Number(r.at);
  }

  /** Calls and errors per minute since `since` (ms), with the filters. */
  async perMinute(
    since: number,
    filter: Pick<AuditQuery, 'serverId' | 'agentId' | 'tool'> = {},
  ): Promise<{ minute: string; calls: number; errors: number }[]> {
    const [where, args] = conditions(filter, since);
    const rows = await this.reads.all<{ m: number; calls: number; errors: number }>(
      `SELECT (at - at % 60000) AS m, COUNT(*) AS calls, SUM(CASE WHEN outcome = 'ok' THEN 0 ELSE 1 END) AS errors FROM audit WHERE ${where.join(' AND ')} GROUP BY m ORDER BY m LIMIT ?`,
      [...args, MINUTES_MAX],
    );
    return rows.map((r) => ({
      minute: new Date(Number(r.m)).toISOString(),
      calls: Number(r.calls),
      errors: Number(r.errors),
    }));
  }

  /** Calls, failures and p50/p95 duration per tool and per agent since `since` (ms). */
  async summary(
    since: number,
    filter: Pick<AuditQuery, 'serverId' | 'agentId' | 'tool'> = {},
  ): Promise<{ byTool: AuditSummaryRow[]; byAgent: AuditSummaryRow[] }> {
    const [where, args] = conditions(filter, since);
    const run = async (key: 'tool' | 'agent_id') => {
      const rows = await this.reads.all<{
        k: string;
        calls: number;
        errors: number;
        p50: number;
        p95: number;
      }>(summarySql(key, where.join(' AND ')), [...args, SUMMARY_MAX_KEYS]);
      return rows.map((r) => ({
        key: r.k,
        calls: Number(r.calls),
        errors: Number(r.errors),
        p50Ms: Number(r.p50) / 1000,
        p95Ms: Number(r.p95) / 1000,
      }));
    };
    return { byTool: await run('tool'), byAgent: await run('agent_id') };
  }

  /** Ends the writer thread (after every write handed to it) and the reading thread; the store itself is closed by its owner. */
  async close(): Promise<void> {
    await this.writer?.close();
    await this.reader?.close();
  }

  /** Keeps at most `maxRows` rows, shared fairly (audit-retention.ts), none older than `oldest` (ms); returns how many went. */
  async trim(maxRows: number, oldest: number): Promise<number> {
    try {
      return await this.trimRows(maxRows, oldest);
    } finally {
      this.changes++;
    }
  }

  private async trimRows(maxRows: number, oldest: number): Promise<number> {
    if (this.writer) return this.writer.trim(maxRows, oldest);
    let removed = (await this.sql.run(TRIM_OLDER, [oldest])).changes;
    const plan = retentionPlan(await this.sql.all<RetentionGroup>(RETENTION_COUNTS, []), maxRows);
    for (const select of retentionSelects(plan)) {
      const seqs = (await this.sql.all<{ seq: number }>(select.sql, select.args)).map((r) => r.seq);
      for (const { sql, args } of retentionDeletes(seqs))
        removed += (await this.sql.run(sql, args)).changes;
    }
    return removed;
  }
}

function conditions(
  query: Pick<AuditQuery, 'serverId' | 'agentId' | 'tool' | 'outcome' | 'turnId'>,
  cutoff: number,
): [string[], SqlValue[]] {
  const where = ['at >= ?'];
  const args: SqlValue[] = [cutoff];
  const add = (column: string, v: string | undefined) => {
    if (v === undefined) return;
    where.push(`${column} = ?`);
    args.push(v);
  };
  add('server_id', query.serverId);
  add('agent_id', query.agentId);
  add('tool', query.tool);
  add('outcome', query.outcome);
  add('turn_id', query.turnId);
  return [where, args];
}
