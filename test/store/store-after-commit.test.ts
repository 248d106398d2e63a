import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { STORE_MIGRATIONS } from '../../daemon/domains/list.js';
import { openDb } from '../../daemon/store/db.js';
import { openPostgresStore } from '../../daemon/store/postgres/open.js';
import type { SqlStore } from '../../daemon/store/sql.js';
import { SqliteSql } from '../../daemon/store/sqlite-sql.js';
import { parseStoreUrl } from '../../lib/store-url.js';
import { freshDatabase } from '../../devkit/pg.js';

/**
 * `SqlTx.afterCommit` on both drivers: what a transaction announces is told
 * after COMMIT only; a rolled-back transaction and an undone savepoint tell
 * nothing of what was added under them. The store's event announcements
 * (messages, approvals, tasks) rest on this.
 */

async function sqlite(t: TestContext): Promise<SqlStore> {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-after-commit-'));
  const path = join(dir, 'store.db');
  const sql = new SqliteSql(openDb(path, STORE_MIGRATIONS), path);
  t.after(async () => {
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return sql;
}

async function postgres(t: TestContext): Promise<SqlStore> {
  const sql = await openPostgresStore(
    parseStoreUrl(await freshDatabase()),
    () => undefined,
    STORE_MIGRATIONS,
  );
  t.after(() => sql.close());
  return sql;
}

for (const [name, open] of [
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
] as const) {
  test(`${name}: afterCommit runs after COMMIT, never for a rollback or an undone savepoint`, async (t) => {
    const sql = await open(t);
    const told: string[] = [];
    await sql.tx(async (q) => {
      q.afterCommit(() => told.push('kept'));
      await q.attempt(async (s) => {
        s.afterCommit(() => told.push('undone savepoint'));
        throw new Error('undo');
      });
      await q.savepoint(async (s) => s.afterCommit(() => told.push('released savepoint')));
      q.afterCommit(() => {
        throw new Error('a listener that throws');
      });
      q.afterCommit(() => told.push('after a throwing one'));
      assert.deepEqual(told, [], 'nothing before COMMIT');
    });
    assert.deepEqual(told, ['kept', 'released savepoint', 'after a throwing one']);
    await assert.rejects(
      sql.tx(async (q) => {
        q.afterCommit(() => told.push('rolled back'));
        throw new Error('rollback');
      }),
      /rollback/,
    );
    assert.equal(told.includes('rolled back'), false);
  });
}
