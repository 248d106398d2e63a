import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { ReadReply, ReadRequest } from './audit-reader.js';

/**
 * The audit trail's reading thread (started by audit-reader.ts): its own
 * connection to the embedded store, allowed to read only. An operator's
 * summary of a busy hour sorts every row of it (about 1.5 s over 100,000
 * rows on a loaded machine); here that time is this thread's, never the
 * daemon's, whose agents' calls go on being answered meanwhile. With the
 * store's WAL a read holds no lock that a writer waits for.
 */
/** Distinct statements are few (a handful of queries times the filter combinations); the bound only guards the map. */
const MAX_STATEMENTS = 64;
const { path } = workerData as { path: string };
const db = new Database(path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('query_only = 1');
const statements = new Map<string, Database.Statement>();

function statement(sql: string): Database.Statement {
  let s = statements.get(sql);
  if (!s) {
    if (statements.size >= MAX_STATEMENTS) statements.clear();
    s = db.prepare(sql);
    statements.set(sql, s);
  }
  return s;
}

parentPort!.on('message', (m: ReadRequest) => {
  let reply: ReadReply;
  if (m.op === 'close') {
    db.close();
    reply = { ok: true, rows: [] };
  } else {
    try {
      reply = { ok: true, rows: statement(m.sql).all(...m.params) };
    } catch (err) {
      const e = err as { code?: unknown; name?: unknown };
      reply = {
        ok: false,
        code: typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'error',
      };
    }
  }
  parentPort!.postMessage({ id: m.id, ...reply });
  if (m.op === 'close') parentPort!.close();
});
