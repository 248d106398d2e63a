import type Database from 'better-sqlite3';
import {
  RETENTION_COUNTS,
  retentionDeletes,
  retentionPlan,
  retentionSelects,
  type RetentionGroup,
} from './audit-retention.js';

/**
 * The audit table's statements that both sides of the embedded store's
 * writer thread run: the thread itself (audit-worker.ts) and the store on
 * the daemon's thread (audit.ts). A leaf with no imports of its own, so the
 * thread loads this file and better-sqlite3, not the store and the catalog.
 */

/** The columns a row is written with, in the order of its values (audit-rows.ts auditValues). */
export const AUDIT_COLUMNS =
  'at, server_id, agent_id, authorization_id, generation_id, runtime, thread_id, via, transport, tool, outcome, duration_us, request_bytes, result_bytes, trace_id, args, result, turn_id';
const WIDTH = 18;

/** One row's INSERT (the writer thread's) or `n` rows' in one statement (PostgreSQL's, where each statement is a round trip). */
export const auditInsertSql = (n: number) =>
  `INSERT INTO audit (${AUDIT_COLUMNS}) VALUES ${Array.from({ length: n }, () => `(${new Array(WIDTH).fill('?').join(', ')})`).join(', ')}`;

/** Retention: rows older than a time, then the count rule of audit-retention.ts (fair shares per agent and kind of call). */
export const TRIM_OLDER = 'DELETE FROM audit WHERE at < ?';

/** Retention on a connection of the writer thread (synchronous); returns how many rows went. */
export function trimAudit(db: Database.Database, maxRows: number, oldest: number): number {
  let removed = db.prepare(TRIM_OLDER).run(oldest).changes;
  const plan = retentionPlan(db.prepare(RETENTION_COUNTS).all() as RetentionGroup[], maxRows);
  for (const select of retentionSelects(plan)) {
    const seqs = (db.prepare(select.sql).all(...select.args) as { seq: number }[]).map(
      (r) => r.seq,
    );
    for (const { sql, args } of retentionDeletes(seqs))
      removed += db.prepare(sql).run(...args).changes;
  }
  return removed;
}
