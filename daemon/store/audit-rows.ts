import type { AuditEntry, AuditTransport, AuditVia } from '../../catalog/audit.js';
import { isoTime } from './ids.js';
import type { Migration } from './migrations.js';
import type { SqlValue } from './sql.js';

/**
 * The audit trail's table: one row per agent call, appended in batches by
 * the recorder (daemon/audit/) and trimmed by count and age. `seq` is the
 * write order; listings go newest first by it and --follow continues after
 * it. Durations are kept in microseconds (the schema holds integers only).
 * One secondary index only (time, for --since and age retention): every
 * index is paid on each of thousands of inserts a second, while filtered
 * reads walk newest first by seq and stop at their page.
 */
export const AUDIT_MIGRATION: Migration = {
  id: '007_audit',
  up(db) {
    db.exec(`
    CREATE TABLE audit (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      at INTEGER NOT NULL, server_id TEXT NOT NULL, agent_id TEXT NOT NULL,
      authorization_id TEXT NOT NULL, generation_id TEXT NOT NULL, runtime TEXT NOT NULL, thread_id TEXT,
      via TEXT NOT NULL, transport TEXT NOT NULL, tool TEXT NOT NULL, outcome TEXT NOT NULL,
      duration_us INTEGER NOT NULL, request_bytes INTEGER NOT NULL, result_bytes INTEGER NOT NULL,
      trace_id TEXT, args TEXT, result TEXT
    ) STRICT;
    CREATE INDEX audit_by_at ON audit (at);
    `);
  },
};

/**
 * The turn a call was made in (null outside one): a turn's detail lists its
 * calls by it. Only rows of turns are indexed (a partial index), so calls
 * outside turns cost no more to write than before.
 */
export const AUDIT_TURN_MIGRATION: Migration = {
  id: '009_audit_turn',
  up(db) {
    db.exec(`
    ALTER TABLE audit ADD COLUMN turn_id TEXT;
    CREATE INDEX audit_by_turn ON audit (turn_id, seq) WHERE turn_id IS NOT NULL;
    `);
  },
};

/**
 * One call as the recorder hands it to the store: the entry agents and
 * operators read (catalog/audit.ts) before it has a position, with the start
 * time in ms and the duration in µs, and the payloads null when not recorded.
 */
export type AuditRecord = Omit<AuditEntry, 'seq' | 'at' | 'durationMs' | 'args' | 'result'> & {
  readonly at: number;
  readonly durationUs: number;
  readonly args: string | null;
  readonly result: string | null;
};

/** One row of the audit table as the drivers return it. */
export interface AuditRow {
  seq: number;
  at: number;
  server_id: string;
  agent_id: string;
  authorization_id: string;
  generation_id: string;
  runtime: string;
  thread_id: string | null;
  via: AuditVia;
  transport: AuditTransport;
  tool: string;
  outcome: string;
  duration_us: number;
  request_bytes: number;
  result_bytes: number;
  trace_id: string | null;
  args: string | null;
  result: string | null;
  turn_id: string | null;
}

/** A row as agents and operators read it. */
export const entryOf = (r: AuditRow): AuditEntry => ({
  seq: r.seq,
  at: isoTime(r.at),
  serverId: r.server_id,
  agentId: r.agent_id,
  authorizationId: r.authorization_id,
  generationId: r.generation_id,
  runtime: r.runtime,
  threadId: r.thread_id,
  via: r.via,
  transport: r.transport,
  tool: r.tool,
  outcome: r.outcome,
  durationMs: r.duration_us / 1000,
  requestBytes: r.request_bytes,
  resultBytes: r.result_bytes,
  traceId: r.trace_id,
  turnId: r.turn_id,
  ...(r.args !== null ? { args: r.args } : {}),
  ...(r.result !== null ? { result: r.result } : {}),
});

/** A record's values in the order of AUDIT_COLUMNS (audit-sql.ts). */
export const auditValues = (r: AuditRecord): SqlValue[] => [
  r.at,
  r.serverId,
  r.agentId,
  r.authorizationId,
  r.generationId,
  r.runtime,
  r.threadId,
  r.via,
  r.transport,
  r.tool,
  r.outcome,
  Math.round(r.durationUs),
  r.requestBytes,
  r.resultBytes,
  r.traceId,
  r.args,
  r.result,
  r.turnId,
];
