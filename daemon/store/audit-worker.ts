import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { auditInsertSql, trimAudit } from './audit-sql.js';
import type { SqlValue } from './sql.js';
import type { WriterReply, WriterRequest } from './audit-writer.js';

/**
 * The audit trail's writer thread (started by audit-writer.ts): its own
 * connection to the embedded store, so the daemon's request thread never
 * spends time on an audit INSERT. It imports only the audit table's
 * statements (audit-sql.ts), not the store or the catalog. A batch arrives as
 * one JSON array of value rows and is written by one prepared single-row
 * INSERT, COMMIT_ROWS rows a transaction: measured on this store, 2.5 µs a
 * row less than multi-row INSERTs, whose 18 × 128 parameters cost more to
 * bind than the statements they save. Each transaction commits without
 * waiting for the disk (synchronous=NORMAL: WAL commits survive a crash of
 * the daemon, a power loss may take the last ones) and holds the write lock
 * for at most COMMIT_ROWS rows, so a write of the request thread that meets
 * it waits about a millisecond. This thread may wait for the lock as long as
 * it must (busy_timeout): the daemon does not.
 */
const COMMIT_ROWS = 128;
/** Its page cache in KiB: it only appends, so a small one holds the pages it touches (the daemon's connection has 4 MiB, db.ts). */
const PAGE_CACHE_KIB = 1024;
const { path } = workerData as { path: string };
const db = new Database(path);
db.pragma('busy_timeout = 10000');
db.pragma('synchronous = NORMAL');
db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
const insert = db.prepare(auditInsertSql(1));
const commit = db.transaction((rows: readonly SqlValue[][], from: number, to: number) => {
  for (let i = from; i < to; i++) insert.run(rows[i]!);
});

function append(rows: readonly SqlValue[][]): WriterReply {
  let at = 0;
  try {
    while (at < rows.length) {
      const to = Math.min(at + COMMIT_ROWS, rows.length);
      commit(rows, at, to);
      at = to;
    }
    return { ok: true, written: at };
  } catch (err) {
    return failed(err, at);
  }
}

function failed(err: unknown, written: number): WriterReply {
  const e = err as { code?: unknown; name?: unknown };
  return {
    ok: false,
    written,
    code: typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'error',
  };
}

parentPort!.on('message', (m: WriterRequest) => {
  let reply: WriterReply;
  if (m.op === 'append') reply = append(JSON.parse(m.rows) as SqlValue[][]);
  else if (m.op === 'trim') {
    try {
      reply = { ok: true, written: 0, removed: trimAudit(db, m.maxRows, m.oldest) };
    } catch (err) {
      reply = failed(err, 0);
    }
  } else {
    db.close();
    reply = { ok: true, written: 0 };
  }
  parentPort!.postMessage({ id: m.id, ...reply });
  if (m.op === 'close') parentPort!.close();
});
