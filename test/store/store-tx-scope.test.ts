import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../daemon/store/db.js';
import { SqliteSql } from '../../daemon/store/sqlite-sql.js';
import { NestedStatementError } from '../../daemon/store/sql.js';
import { TxScope } from '../../daemon/store/tx-scope.js';
import { STORE_MIGRATIONS } from '../../daemon/domains/list.js';

const tick = () => new Promise((r) => setImmediate(r));

test('TxScope: inside only in what a run awaits; overlapping runs each stay inside until their own end', async () => {
  const scope = new TxScope();
  assert.equal(scope.inside(), false);
  let releaseA!: () => void;
  const gateA = new Promise<void>((r) => (releaseA = r));
  const seen: string[] = [];
  const a = scope.run(async () => {
    await gateA;
    seen.push(`a:${scope.inside()}`);
  });
  const b = scope.run(async () => {
    await tick();
    seen.push(`b:${scope.inside()}`);
  });
  // Code that is not part of either run is outside, although both are open.
  await tick();
  assert.equal(scope.inside(), false);
  await b;
  assert.equal(scope.inside(), false);
  releaseA();
  await a;
  assert.deepEqual(seen, ['b:true', 'a:true']);
  // Switched off when the last run ended, and on again for the next one.
  assert.equal(scope.inside(), false);
  await scope.run(async () => {
    await tick();
    assert.equal(scope.inside(), true);
  });
  assert.equal(scope.inside(), false);
});

test('TxScope: a run that throws still ends; the next run is guarded again', async () => {
  const scope = new TxScope();
  await assert.rejects(
    scope.run(async () => {
      await tick();
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(scope.inside(), false);
  await scope.run(async () => assert.equal(scope.inside(), true));
});

test('SQLite: a statement on the store from inside its own transaction is refused, in every transaction; others wait and run', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-txscope-'));
  const db = openDb(join(dir, 'store.db'), STORE_MIGRATIONS);
  const sql = new SqliteSql(db, 'store.db');
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let round = 0; round < 3; round++) {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const tx = sql.tx(async (q) => {
      await q.run("INSERT INTO meta (key, value) VALUES (?, '1')", [`k${round}`]);
      await assert.rejects(sql.get('SELECT 1 AS one'), NestedStatementError);
      await held;
    });
    await tick();
    // Another caller, not part of the transaction, waits for it instead of being refused.
    const outside = sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [
      `k${round}`,
    ]);
    await tick();
    release();
    await tx;
    assert.deepEqual(await outside, { value: '1' });
    // Outside any transaction nothing is refused.
    assert.deepEqual(await sql.get('SELECT 1 AS one'), { one: 1 });
  }
});
