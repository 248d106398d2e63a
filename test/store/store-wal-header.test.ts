import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { openDb } from '../../daemon/store/db.js';
import { SqliteSql } from '../../daemon/store/sqlite-sql.js';
import { STORE_MIGRATIONS } from '../../daemon/domains/list.js';

/**
 * The store's change check reads SQLite's WAL-index header instead of asking
 * SQLite (no read transaction): every commit by any connection must move it,
 * and a read must not.
 */

function tempDb(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-wal-'));
  const path = join(dir, 'store.db');
  const db = openDb(path, STORE_MIGRATIONS);
  const sql = new SqliteSql(db, path);
  const other = openDb(path, STORE_MIGRATIONS);
  t.after(async () => {
    other.close();
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, db, sql, other };
}

type Op =
  | { kind: 'other-write'; key: number }
  | { kind: 'own-write'; key: number }
  | { kind: 'other-tx'; rows: number }
  | { kind: 'other-rollback' }
  | { kind: 'checkpoint'; mode: 'PASSIVE' | 'FULL' | 'RESTART' | 'TRUNCATE' }
  | { kind: 'read' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('other-write' as const), key: fc.nat(50) }),
  fc.record({ kind: fc.constant('own-write' as const), key: fc.nat(50) }),
  fc.record({ kind: fc.constant('other-tx' as const), rows: fc.integer({ min: 1, max: 5 }) }),
  fc.constant({ kind: 'other-rollback' as const }),
  fc.record({
    kind: fc.constant('checkpoint' as const),
    mode: fc.constantFrom(
      'PASSIVE' as const,
      'FULL' as const,
      'RESTART' as const,
      'TRUNCATE' as const,
    ),
  }),
  fc.constant({ kind: 'read' as const }),
);

test('every commit by any connection moves the change counter; reads and rollbacks do not', async (t) => {
  const { db, sql, other } = tempDb(t);
  let n = 0;
  const put = (conn: typeof db, key: number) =>
    conn
      .prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)')
      .run(`wal-probe-${key}`, String(n++));
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
      let before = sql.changeCounter();
      assert.notEqual(before, null);
      for (const o of ops) {
        let committed: boolean | 'maybe' = false;
        if (o.kind === 'other-write') {
          put(other, o.key);
          committed = true;
        } else if (o.kind === 'own-write') {
          await sql.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [
            `wal-own-${o.key}`,
            String(n++),
          ]);
          committed = true;
        } else if (o.kind === 'other-tx') {
          other.transaction(() => {
            for (let i = 0; i < o.rows; i++) put(other, 100 + i);
          })();
          committed = true;
        } else if (o.kind === 'other-rollback') {
          other.exec('BEGIN IMMEDIATE');
          put(other, 999);
          other.exec('ROLLBACK');
        } else if (o.kind === 'checkpoint') {
          // A checkpoint changes no row; restarting the WAL may rewrite the header (a harmless miss).
          other.pragma(`wal_checkpoint(${o.mode})`);
          committed = 'maybe';
        } else {
          await sql.get('SELECT count(*) AS n FROM meta');
          other.prepare('SELECT count(*) FROM meta').get();
        }
        const after = sql.changeCounter();
        if (committed === true) assert.notEqual(after, before, `${o.kind} was not seen`);
        if (committed === false) assert.equal(after, before, `${o.kind} moved the counter`);
        before = after;
      }
    }),
    { numRuns: 60 },
  );
});

test('a commit by another process moves the counter; a transaction open on the connection turns the cache off', async (t) => {
  const { path, db, sql } = tempDb(t);
  const before = sql.changeCounter();
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  execFileSync(process.execPath, [
    '-e',
    `const D = require(${JSON.stringify(sqlite)}); const d = new D(process.argv[1]);
     d.prepare("INSERT INTO meta (key, value) VALUES ('from-elsewhere', 'x')").run(); d.close();`,
    path,
  ]);
  assert.notEqual(sql.changeCounter(), before, 'another process committed');
  const settled = sql.changeCounter();
  assert.equal(sql.changeCounter(), settled, 'stable while nothing commits');

  // Begun by hand on the same connection (not through the store's tx): its own rows are in no header.
  db.exec('BEGIN');
  db.prepare("INSERT INTO meta (key, value) VALUES ('uncommitted', 'x')").run();
  assert.equal(sql.changeCounter(), null);
  db.exec('ROLLBACK');
  assert.notEqual(sql.changeCounter(), null);
});

test('a check is shared with a request read before it began, never across a write of this connection', async (t) => {
  const { sql, other } = tempDb(t);
  const put = (key: string) =>
    other.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, 'x');
  const readEarlier = performance.now();
  const g1 = sql.changeCounter();
  put('after-the-check');
  assert.equal(
    sql.changeCounter(readEarlier),
    g1,
    'a request read before the check shares it: the later commit is concurrent with that call',
  );
  const readLater = performance.now();
  const g2 = sql.changeCounter(readLater);
  assert.notEqual(g2, g1, 'a request read after the commit gets a check of its own');
  assert.equal(sql.changeCounter(readLater), g2, 'and shares that one');
  await sql.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('own', 'x')");
  assert.notEqual(
    sql.changeCounter(readLater),
    g2,
    "this connection's own write is never hidden by a shared check",
  );
  put('no-since');
  const g3 = sql.changeCounter();
  put('no-since-2');
  assert.notEqual(sql.changeCounter(), g3, 'a caller without a read time always checks');
});

test('an in-memory database keeps the driver check', async () => {
  const db = openDb(':memory:', STORE_MIGRATIONS);
  const sql = new SqliteSql(db, ':memory:');
  const before = sql.changeCounter();
  await sql.run("INSERT INTO meta (key, value) VALUES ('m', 'x')");
  assert.notEqual(sql.changeCounter(), before);
  await sql.close();
});
