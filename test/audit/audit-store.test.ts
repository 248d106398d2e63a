import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startInProc } from '../../devkit/inproc.js';
import { freshDatabase } from '../../devkit/pg.js';
import {
  AUDIT_DEFAULTS,
  parseAuditSettings,
  AuditSettingsError,
} from '../../daemon/audit/settings.js';
import { AUDIT_BATCH_ROWS, AUDIT_FLUSH_MS, AUDIT_QUEUE_MAX } from '../../daemon/audit/recorder.js';
import { traceIdOf } from '../../daemon/audit/trace.js';
import { cutBytes } from '../../daemon/audit/trail.js';

/**
 * The audit trail's store and recorder in process (the daemon's real app,
 * Exec route and store; a fake clock): retention by count and by age on
 * SQLite and PostgreSQL, batching off the request path, a store that refuses
 * writes, and the settings file's checks.
 */
const DAY = 86_400_000;
const BACKENDS = [
  { name: 'sqlite', store: async () => undefined },
  { name: 'postgres', store: async () => freshDatabase() },
];

const count = async (sql: { get<R>(s: string): Promise<R | undefined> }) =>
  Number((await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM audit'))!.n);

for (const backend of BACKENDS) {
  test(`audit retention (${backend.name}): at most maxRows, none older than maxAge (injected clock)`, async (t) => {
    const store = await backend.store();
    const p = await startInProc(t, {
      ...(store ? { store } : {}),
      audit: { ...AUDIT_DEFAULTS, maxRows: 100, maxAgeMs: DAY },
    });
    const call = await p.runtime();
    const audit = p.services.audit!;
    for (let i = 0; i < 150; i++) await call('task', 'list', {});
    await audit.recorder.flush();
    // Writes apply retention now and then (the first write, then once a minute or per maxRows/10 rows); trim() applies it now.
    await audit.recorder.trim();
    assert.equal(await count(p.services.store), 100);
    assert.equal(audit.recorder.stats().trimmed, 50);
    assert.equal(await audit.recorder.trim(), 0);
    // The newest stay: the lowest seq left is the 51st written.
    const page = await p.services.auditLog.list({ limit: 100 });
    assert.equal(page.items.length, 100);
    assert.equal(page.hasMore, false);
    assert.equal(page.items.at(-1)!.seq - page.items[0]!.seq, -99);

    // A day and a bit later, only what was written since survives the age rule.
    p.clock.advance(DAY + 1);
    for (let i = 0; i < 5; i++) await call('task', 'list', {});
    await audit.recorder.flush();
    await audit.recorder.trim();
    assert.equal(await count(p.services.store), 5);
    // Exactly at the limit nothing goes: a row of age == maxAge is kept, one ms older is not.
    p.clock.advance(DAY);
    assert.equal(await audit.recorder.trim(), 0);
    p.clock.advance(1);
    assert.equal(await audit.recorder.trim(), 5);
    assert.equal(p.services.audit!.recorder.stats().trimmed, 155);
  });
}

test('a call never waits for its audit row: rows are written after the response, in batches', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  const recorder = p.services.audit!.recorder;
  const r = await call('task', 'list', {});
  assert.equal(r.status, 200);
  assert.deepEqual(
    [recorder.stats().queued, recorder.stats().written],
    [1, 0],
    'queued when the response is out',
  );
  // Written by the timer (nothing here flushes); the writer thread may need a while to be scheduled on a loaded machine.
  await new Promise((res) => setTimeout(res, AUDIT_FLUSH_MS));
  for (const until = Date.now() + 5_000; recorder.stats().written === 0 && Date.now() < until; )
    await new Promise((res) => setTimeout(res, 25));
  assert.deepEqual(
    [recorder.stats().queued, recorder.stats().written],
    [0, 1],
    'written by the timer',
  );
  // Its commit did not wait for fsync; on SQLite the store's own setting is back for everything else.
  if (p.services.sqlite) assert.equal(p.services.sqlite.pragma('synchronous', { simple: true }), 2);
  // A full batch is written without waiting for the timer.
  const row = (await p.services.auditLog.list({ limit: 1 })).items[0]!;
  const record = { ...row, at: p.clock.now(), durationUs: 1, args: null, result: null };
  for (let i = 0; i < AUDIT_BATCH_ROWS; i++) recorder.record(record);
  await new Promise((res) => setTimeout(res, 20));
  // Taken by a write well before the 200 ms timer (which would still be pending).
  assert.equal(recorder.stats().queued, 0, JSON.stringify(recorder.stats()));
  await recorder.flush();
  assert.equal(recorder.stats().written, 1 + AUDIT_BATCH_ROWS, JSON.stringify(recorder.stats()));
});

test('on the embedded store, audit rows are written by the writer thread, not by the connection that serves requests', async (t) => {
  const p = await startInProc(t);
  if (!p.services.sqlite)
    return t.skip(
      'the store is PostgreSQL (AGENTTEAM_TEST_STORE): its batches go through the pool',
    );
  const call = await p.runtime();
  const recorder = p.services.audit!.recorder;
  await call('task', 'list', {});
  await recorder.flush();
  const own = () =>
    p.services.sqlite!.prepare('SELECT total_changes() AS n').get() as { n: number };
  const before = own().n;
  const written = recorder.stats().written;
  for (let i = 0; i < 300; i++) await call('task', 'list', {});
  await recorder.flush();
  assert.equal(recorder.stats().written, written + 300);
  // The request thread's connection changed no row: the 300 INSERTs ran on the writer thread's own connection.
  assert.equal(own().n, before);
  assert.equal(await count(p.services.store), written + 300);
  // Retention runs there too.
  assert.equal(await recorder.trim(), 0);
  assert.equal(own().n, before);
});

test('a store that refuses writes: rows wait (bounded) and are written once it accepts them again', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  const recorder = p.services.audit!.recorder;
  // A real fault: the table is gone (renamed away), so every INSERT fails (SQLite, or PostgreSQL under AGENTTEAM_TEST_STORE).
  await p.services.store.run('ALTER TABLE audit RENAME TO audit_away');
  for (let i = 0; i < 5; i++) await call('task', 'list', {});
  await assert.rejects(recorder.flush(), /could not be written/);
  assert.equal(recorder.stats().queued, 5);
  assert.ok(recorder.stats().failedWrites >= 1);
  await p.services.store.run('ALTER TABLE audit_away RENAME TO audit');
  await recorder.flush();
  assert.deepEqual([recorder.stats().queued, recorder.stats().written], [0, 5]);
  assert.equal(await count(p.services.store), 5);
  assert.equal(AUDIT_QUEUE_MAX, 8192);
});

test('audit.json: defaults, every limit at the limit and one past it, unknown keys refused', () => {
  assert.deepEqual(parseAuditSettings({}), AUDIT_DEFAULTS);
  assert.equal(parseAuditSettings({ payloadBytes: 64 }).payloadBytes, 64);
  assert.equal(parseAuditSettings({ payloadBytes: 65_536 }).payloadBytes, 65_536);
  assert.equal(parseAuditSettings({ maxRows: 100 }).maxRows, 100);
  assert.equal(parseAuditSettings({ maxAgeDays: 1 }).maxAgeMs, DAY);
  for (const bad of [
    { payloadBytes: 63 },
    { payloadBytes: 65_537 },
    { maxRows: 99 },
    { maxAgeDays: 0 },
    { maxAgeDays: 3651 },
    { enabled: 'yes' },
    { colour: 1 },
    [],
    null,
  ]) {
    assert.throws(() => parseAuditSettings(bad), AuditSettingsError, JSON.stringify(bad));
  }
});

test('traceparent: only a valid W3C value gives a trace id', () => {
  const id = '4bf92f3577b34da6a3ce929d0e0e4736';
  assert.equal(traceIdOf(`00-${id}-00f067aa0ba902b7-01`), id);
  for (const bad of [
    undefined,
    '',
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `00-${id}-${'0'.repeat(16)}-01`,
    `ff-${id}-00f067aa0ba902b7-01`,
    `00-${id.toUpperCase()}-00f067aa0ba902b7-01`,
    `00-${id}-00f067aa0ba902b7-01-extra`,
    `00-${id}-00f067aa0ba902b7`,
    42,
  ]) {
    assert.equal(traceIdOf(bad), null, String(bad));
  }
  assert.equal(
    traceIdOf(`01-${id}-00f067aa0ba902b7-01-future`),
    id,
    'a later version may add fields',
  );
});

test('cutBytes: at most n UTF-8 bytes, never half a character', () => {
  assert.equal(cutBytes('abc', 3), 'abc');
  assert.equal(cutBytes('abcd', 3), 'abc');
  assert.equal(cutBytes('€€', 5), '€');
  assert.equal(cutBytes('€€', 6), '€€');
  assert.equal(cutBytes('😀x', 3), '');
});
