import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startAudited, rowsAtLeast } from '../../devkit/audit.js';

/**
 * Secrets planted in arguments, results and errors on every transport, with
 * payload recording on: no audit row (as served, and as stored) and no line
 * of the daemon's log holds one; the rows hold the secret's name instead,
 * which shows the payloads were recorded and masked rather than dropped.
 */
// Shaped like a task id, so a not_found message quotes it back.
const SECRET = 'task_Pl4ntedS3cretV4lue9';
const NAME = 'AUDIT_PLANT_TOKEN';

const SCRIPT = `const a = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (a.who === 'fail') { process.stderr.write('refused: ${SECRET}'); process.exit(3); }
process.stdout.write('hello ${SECRET}');`;

test('secrets planted in arguments, results and errors reach no audit row and no log line', async (t) => {
  const a = await startAudited(t, {
    audit: { recordPayloads: true, payloadBytes: 65_536 },
    env: { [NAME]: SECRET },
    declaredScript: SCRIPT,
  });
  const calls: Promise<unknown>[] = [];
  assert.equal((await a.exec('task', 'create', { title: `before ${SECRET} after` })).status, 200);
  assert.equal(
    (await a.exec('task', 'get', { id: SECRET })).status,
    404,
    'an error quoting the argument',
  );
  assert.equal(
    (await a.exec('github', 'watch', { repo: 'acme/api', number: 2, target: SECRET })).status,
    200,
    'echoed by the extension upstream',
  );
  assert.equal(
    (await a.tool('message_send', { target: 'channel:general', content: SECRET })).result.isError,
    false,
  );
  assert.equal((await a.tool('say_hello', { who: SECRET })).result.isError, false);
  assert.equal(
    (await a.tool('say_hello', { who: 'fail' }, { 'agentteam/threadId': SECRET })).result.isError,
    true,
    'stderr quoted in the error',
  );
  assert.equal((await a.tool('kb_search', { query: SECRET })).result.isError, false);
  assert.equal(
    (
      await a.clientHttp(
        { text: SECRET },
        { ok: true, content: [{ type: 'text', text: `back ${SECRET}` }] },
      )
    ).result.isError,
    false,
  );
  assert.equal(
    (
      await a.clientHttp(
        { text: 'x' },
        { ok: false, error: { code: 'oops', message: `failed with ${SECRET}` } },
      )
    ).result.isError,
    true,
  );
  assert.equal(
    (await a.clientStdio({ record_id: SECRET }, { text: `record ${SECRET}` })).result.isError,
    false,
  );
  assert.equal(
    (await a.clientStdio({ record_id: 'r2' }, { status: 'error', text: `no: ${SECRET}` })).result
      .isError,
    true,
  );
  assert.ok((await a.tool(SECRET, { q: SECRET })).error, 'an unknown tool named by the secret');
  await Promise.all(calls);

  const rows = await rowsAtLeast(a, 12);
  assert.equal(rows.length, 12);
  const served = JSON.stringify(rows);
  assert.equal(served.includes(SECRET), false, 'served rows');
  // Recorded and masked, not dropped: the arguments and results are there, with the name in place of the value.
  const withName = rows.filter((r: any) => `${r.args ?? ''}${r.result ?? ''}`.includes(NAME));
  assert.ok(
    withName.length >= 10,
    `masked payloads: ${withName.map((r: any) => r.tool).join(', ')}`,
  );
  assert.ok(
    rows.every((r: any) => typeof r.args === 'string' && typeof r.result === 'string'),
    'payloads recorded',
  );

  // As stored: every column of every audit row in the SQLite file.
  const db = new Database(join(a.d.home, 'store.db'), { readonly: true });
  t.after(() => db.close());
  const stored = JSON.stringify(db.prepare('SELECT * FROM audit').all());
  assert.equal(stored.includes(SECRET), false, 'stored rows');
  assert.ok(stored.includes(NAME));

  // The daemon's log (it runs detached: diagnostics go to daemon.log).
  await a.d.stop();
  const log = join(a.d.home, 'daemon.log');
  if (existsSync(log))
    assert.equal(readFileSync(log, 'utf8').includes(SECRET), false, 'daemon.log');
});
