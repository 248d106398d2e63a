import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { PgSql } from '../../daemon/store/postgres/pg-sql.js';
import { migratePostgres } from '../../daemon/store/postgres/migrate.js';
import { openPostgresStore } from '../../daemon/store/postgres/open.js';
import { STORE_MIGRATIONS as MIGRATIONS } from '../../daemon/domains/list.js';
import { runMigrations } from '../../daemon/store/migrations.js';
import { NestedStatementError } from '../../daemon/store/sql.js';
import { parseStoreUrl } from '../../lib/store-url.js';
import { decodeText, encodeText } from '../../daemon/store/postgres/text.js';
import { PG_PASSWORD, freshDatabase } from '../../devkit/pg.js';

const quiet = () => {};

test('the NUL escape is an exact round trip and keeps equality (property)', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u0002', 'a', 'é', '😀', '\\') }),
      (s) => {
        assert.equal(decodeText(encodeText(s)), s);
      },
    ),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u0002', 'a') }),
      fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u0002', 'a') }),
      (a, b) => {
        assert.equal(encodeText(a) === encodeText(b), a === b);
      },
    ),
    { numRuns: 2000 },
  );
});

test('strings round-trip byte for byte through PostgreSQL, NUL and lone escapes included', async (t) => {
  const sql = await openPostgresStore(parseStoreUrl(await freshDatabase()), quiet, MIGRATIONS);
  t.after(() => sql.close());
  await sql.withClient((c) =>
    c.query('CREATE TABLE rt (k BIGINT PRIMARY KEY, v TEXT COLLATE "C" NOT NULL)'),
  );
  let k = 0;
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 64 }), async (s) => {
      const key = ++k;
      await sql.run('INSERT INTO rt (k, v) VALUES (?, ?)', [key, s]);
      const back = await sql.get<{ k: number; v: string }>(
        'SELECT k, v FROM rt WHERE v = ? AND k = ?',
        [s, key],
      );
      assert.deepEqual(back, { k: key, v: s });
    }),
    { numRuns: 300 },
  );
  const nul = 'a\u0000b\u0001c';
  await sql.run('INSERT INTO rt (k, v) VALUES (?, ?)', [-1, nul]);
  assert.equal((await sql.get<{ v: string }>('SELECT v FROM rt WHERE k = ?', [-1]))!.v, nul);
});

test('two daemons migrating one database at once apply each step exactly once', async (t) => {
  const url = parseStoreUrl(await freshDatabase());
  const [a, b] = [new PgSql(url, quiet), new PgSql(url, quiet)];
  t.after(async () => {
    await a.close();
    await b.close();
  });
  const [da, db] = await Promise.all([
    a.withClient((c) => migratePostgres(c, MIGRATIONS)),
    b.withClient((c) => migratePostgres(c, MIGRATIONS)),
  ]);
  assert.deepEqual([...da, ...db].sort(), MIGRATIONS.map((m) => m.id).sort());
  const rows = await a.all<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
  assert.deepEqual(
    rows.map((r) => r.id),
    MIGRATIONS.map((m) => m.id).sort(),
  );
  assert.equal((await a.all('SELECT key FROM meta')).length, 1, 'one cursor key');
  assert.deepEqual(await a.withClient((c) => migratePostgres(c, MIGRATIONS)), []);
});

test('a database migrated by a newer agentteam is refused with the unknown step named', async (t) => {
  const url = parseStoreUrl(await freshDatabase());
  const sql = await openPostgresStore(url, quiet, MIGRATIONS);
  await sql.run('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)', ['999_future', 1]);
  await sql.close();
  await assert.rejects(openPostgresStore(url, quiet, MIGRATIONS), /newer agentteam.*999_future/);
  t.diagnostic('refused as expected');
});

test('the derived PostgreSQL schema has the same tables, columns, nullability and indexes as SQLite', async (t) => {
  const sql = await openPostgresStore(parseStoreUrl(await freshDatabase()), quiet, MIGRATIONS);
  t.after(() => sql.close());
  const lite = new Database(':memory:');
  runMigrations(lite, MIGRATIONS);
  const liteTables = (
    lite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
  const pgTables = (
    await sql.all<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name',
    )
  ).map((r) => r.name);
  assert.deepEqual(pgTables, liteTables);
  for (const table of liteTables) {
    const liteCols = (
      lite.prepare(`PRAGMA table_info(${table})`).all() as {
        name: string;
        notnull: number;
        pk: number;
      }[]
    )
      .map((c) => `${c.name}:${c.notnull || c.pk ? 'not null' : 'null'}`)
      .sort();
    const pgCols = (
      await sql.all<{ name: string; nullable: string }>(
        'SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?',
        [table],
      )
    )
      .map((c) => `${c.name}:${c.nullable === 'NO' ? 'not null' : 'null'}`)
      .sort();
    assert.deepEqual(pgCols, liteCols, table);
  }
  const liteIdx = (
    lite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
  const pgIdx = (
    await sql.all<{ name: string }>(
      "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname",
    )
  ).map((r) => r.name);
  assert.deepEqual(pgIdx, liteIdx);
  lite.close();
});

test('concurrent read-modify-write transactions serialize: 40 increments from two pools give exactly 40', async (t) => {
  const url = parseStoreUrl(await freshDatabase());
  const [a, b] = [
    await openPostgresStore(url, quiet, MIGRATIONS),
    await openPostgresStore(url, quiet, MIGRATIONS),
  ];
  t.after(async () => {
    await a.close();
    await b.close();
  });
  await a.run("INSERT INTO meta (key, value) VALUES ('counter', '0')");
  const bump = (s: PgSql) =>
    s.tx(async (q) => {
      const row = await q.get<{ value: string }>("SELECT value FROM meta WHERE key = 'counter'");
      await q.run("UPDATE meta SET value = ? WHERE key = 'counter'", [
        String(Number(row!.value) + 1),
      ]);
    });
  await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 ? a : b)));
  assert.equal(
    (await a.get<{ value: string }>("SELECT value FROM meta WHERE key = 'counter'"))!.value,
    '40',
  );
});

test('a savepoint undoes only its own changes; a statement on the store from inside its transaction is refused', async (t) => {
  const sql = await openPostgresStore(parseStoreUrl(await freshDatabase()), quiet, MIGRATIONS);
  t.after(() => sql.close());
  await sql.tx(async (q) => {
    await q.run("INSERT INTO meta (key, value) VALUES ('kept', '1')");
    await assert.rejects(
      q.savepoint(async (s) => {
        await s.run("INSERT INTO meta (key, value) VALUES ('undone', '1')");
        throw new Error('boom');
      }),
      /boom/,
    );
    await assert.rejects(sql.get('SELECT 1 AS one'), NestedStatementError);
  });
  assert.deepEqual(
    (
      await sql.all<{ key: string }>(
        "SELECT key FROM meta WHERE key IN ('kept', 'undone') ORDER BY key",
      )
    ).map((r) => r.key),
    ['kept'],
  );
});

test('an unreachable store is an error naming its host and never its password', async () => {
  const url = parseStoreUrl(
    `postgres://agentteam:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:1/nowhere`,
  );
  const err = await openPostgresStore(url, quiet, MIGRATIONS).then(
    () => null,
    (e: Error) => e,
  );
  assert.ok(err);
  if (!err) return;
  assert.match(err.message, /127\.0\.0\.1:1\/nowhere/);
  assert.ok(
    !err.message.includes(PG_PASSWORD) && !err.message.includes(encodeURIComponent(PG_PASSWORD)),
    err.message,
  );
});

test('store URLs: masked forms and errors never carry the password', () => {
  const raw = `postgresql://team:${encodeURIComponent(PG_PASSWORD)}@db.example:6543/agentteam?sslmode=require`;
  const u = parseStoreUrl(raw);
  assert.equal(u.location, 'db.example:6543/agentteam');
  assert.equal(u.masked, 'postgresql://team:***@db.example:6543/agentteam?…');
  assert.equal(u.password, PG_PASSWORD);
  assert.equal(u.mask(`failed for ${raw} with ${PG_PASSWORD}`), `failed for ${u.masked} with ***`);
  assert.equal(parseStoreUrl('postgres://h/db').location, 'h:5432/db');
  for (const bad of [
    'mysql://u:hunter22secret@h/db',
    'postgres://u:hunter22secret@h',
    'postgres://u:hunter22secret@/db',
    'not a url hunter22secret',
  ]) {
    assert.throws(
      () => parseStoreUrl(bad),
      (e: Error) => !e.message.includes('hunter22secret'),
    );
  }
  void pg;
});
