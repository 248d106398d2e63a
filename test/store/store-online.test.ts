import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN, cli, startDaemon, startRuntime } from '../../devkit/daemon.js';
import { call, closeHttp } from '../../devkit/http.js';

const execFileP = promisify(execFile);
const SQLITE_MODULE = createRequire(import.meta.url).resolve('better-sqlite3');

/** Runs SQL in a second process through better-sqlite3 (not the daemon's connection). */
async function otherProcess(db: string, sql: string, ...params: string[]): Promise<unknown> {
  const script = `const D = require(process.argv[1]); const db = new D(process.argv[2]); db.pragma('busy_timeout = 5000');
    const st = db.prepare(process.argv[3]); const p = process.argv.slice(4);
    process.stdout.write(JSON.stringify(st.reader ? st.pluck().get(...p) : st.run(...p).changes)); db.close();`;
  const { stdout } = await execFileP(
    process.execPath,
    ['-e', script, SQLITE_MODULE, db, sql, ...params],
    { timeout: 15_000 },
  );
  return JSON.parse(stdout);
}

async function sqliteShell(db: string, sql: string): Promise<string | null> {
  try {
    await execFileP('sqlite3', ['-version']);
  } catch {
    return null; // not installed here
  }
  const { stdout } = await execFileP('sqlite3', ['-cmd', '.timeout 5000', db, sql], {
    timeout: 15_000,
  });
  return stdout.trim();
}

test('the store is readable (and writable) by other processes while the daemon serves writes; the read cache sees their writes', async (t) => {
  const d = await startDaemon();
  const rt = await startRuntime(d);
  t.after(async () => {
    await rt.close();
    await d.close();
    closeHttp();
  });
  const store = join(d.home, 'store.db');
  let writing = true;
  let created = 0;
  const writer = (async () => {
    while (writing) {
      const r = await call(rt, 'task', 'create', { title: `t${created}` });
      assert.equal(r.status, 200, r.text);
      created++;
    }
  })();
  const counts: number[] = [];
  const shell: string[] = [];
  for (let i = 0; i < 4; i++) {
    counts.push((await otherProcess(store, 'select count(*) from tasks')) as number);
    const s = await sqliteShell(store, 'select count(*) from tasks');
    if (s !== null) shell.push(s);
  }
  writing = false;
  await writer;
  assert.ok(created > 0);
  for (let i = 1; i < counts.length; i++)
    assert.ok(counts[i]! >= counts[i - 1]!, `counts grow: ${counts}`);
  assert.ok(counts.at(-1)! > 0, `writes seen from outside: ${counts}`);
  assert.equal(await otherProcess(store, 'select count(*) from tasks'), created);
  t.diagnostic(
    `counts from a second process: ${counts.join(', ')}; sqlite3 shell: ${shell.join(', ') || 'not installed'}; created ${created}`,
  );
  await t.test('the sqlite3 shell read the same file meanwhile', (st) => {
    if (shell.length === 0)
      return st.skip('sqlite3 is not installed: only the better-sqlite3 reader above was checked');
    assert.equal(shell.length, counts.length);
    for (const s of shell) assert.match(s, /^\d+$/);
  });

  // A write from elsewhere is seen by the daemon's next read (its read cache keys on data_version).
  const { task } = (await call(rt, 'task', 'create', { title: 'before' })).json.data as {
    task: { id: string };
  };
  assert.equal((await call(rt, 'task', 'get', { id: task.id })).json.data.task.title, 'before');
  assert.equal((await call(rt, 'task', 'get', { id: task.id })).json.data.task.title, 'before');
  assert.equal(
    await otherProcess(store, "update tasks set title = 'from elsewhere' where id = ?", task.id),
    1,
  );
  assert.equal(
    (await call(rt, 'task', 'get', { id: task.id })).json.data.task.title,
    'from elsewhere',
  );
});

test('store backup: online through the daemon, refuses to overwrite without --force, 0600, restores; direct when no daemon runs', async (t) => {
  const d = await startDaemon();
  const rt = await startRuntime(d);
  const out = mkdtempSync(join(tmpdir(), 'agentteam-backup-'));
  const restoredHome = mkdtempSync(join(tmpdir(), 'agentteam-restored-'));
  // One hook, in order: the restored daemon (if it started) stops before its home is removed.
  let restored: { rt2?: { close(): Promise<void> }; d2?: { close(): Promise<void> } } = {};
  t.after(async () => {
    await restored.rt2?.close();
    await restored.d2?.close();
    await rt.close();
    await d.close();
    closeHttp();
    rmSync(out, { recursive: true, force: true });
    rmSync(restoredHome, { recursive: true, force: true });
  });
  for (let i = 0; i < 20; i++)
    assert.equal((await call(rt, 'task', 'create', { title: `kept ${i}` })).status, 200);
  let writing = true;
  const writer = (async () => {
    while (writing) await call(rt, 'task', 'create', { title: 'during' });
  })();
  const file = join(out, 'copy.db');
  // A relative FILE is resolved against the caller's working directory.
  const r = await execFileP(process.execPath, [BIN, 'store', 'backup', 'copy.db'], {
    env: { ...process.env, AGENTTEAM_HOME: d.home },
    cwd: out,
    timeout: 20_000,
  }).then(
    (x) => ({ code: 0, ...x }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  writing = false;
  await writer;
  assert.equal(r.code, 0, r.stderr);
  const env = JSON.parse(r.stdout) as {
    ok: boolean;
    data: { path: string; bytes: number; via: string };
  };
  assert.equal(env.ok, true);
  assert.equal(env.data.via, 'daemon');
  assert.equal(env.data.path, file);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(file).size, env.data.bytes);
  const inCopy = (await otherProcess(file, 'select count(*) from tasks')) as number;
  assert.ok(inCopy >= 20, `copy holds ${inCopy} tasks`);
  assert.equal(await otherProcess(file, 'pragma integrity_check'), 'ok');

  writeFileSync(join(out, 'precious'), 'not a database');
  const refused = await cli(d.home, ['store', 'backup', join(out, 'precious')]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /already exists.*--force/);
  assert.equal(statSync(join(out, 'precious')).size, 'not a database'.length);
  const forced = await cli(d.home, ['store', 'backup', '--force', join(out, 'precious')]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(await otherProcess(join(out, 'precious'), 'pragma integrity_check'), 'ok');
  assert.equal((await cli(d.home, ['store', 'backup', join(out, 'no-such-dir', 'x.db')])).code, 1);
  // Never inside the home, where --force could replace the live store.
  const inside = await cli(d.home, ['store', 'backup', '--force', join(d.home, 'store.db')]);
  assert.equal(inside.code, 1);
  assert.match(inside.stderr, /inside the daemon's home/);
  assert.equal(await otherProcess(join(d.home, 'store.db'), 'pragma integrity_check'), 'ok');

  // Restore: a daemon on a home holding the copy serves the same tasks.
  copyFileSync(file, join(restoredHome, 'store.db'));
  const d2 = await startDaemon({ home: restoredHome });
  restored = { d2 };
  const rt2 = await startRuntime(d2);
  restored = { d2, rt2 };
  const titles = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = (await call(rt2, 'task', 'list', { limit: 50, ...(cursor ? { cursor } : {}) }))
      .json.data as { tasks: { title: string }[]; nextCursor?: string };
    for (const task of page.tasks) titles.add(task.title);
    cursor = page.nextCursor;
  } while (cursor);
  for (let i = 0; i < 20; i++) assert.ok(titles.has(`kept ${i}`), `restored task kept ${i}`);

  // No daemon: the CLI copies straight from store.db.
  await rt.close();
  await d.stop();
  const direct = await cli(d.home, ['store', 'backup', join(out, 'direct.db')]);
  assert.equal(direct.code, 0, direct.stderr);
  assert.equal((JSON.parse(direct.stdout) as { data: { via: string } }).data.via, 'direct');
  assert.match(
    (await cli(d.home, ['store', 'backup', '--force', join(d.home, 'runtime', 'x.db')])).stderr,
    /inside the daemon's home/,
  );
  assert.equal(statSync(join(out, 'direct.db')).mode & 0o777, 0o600);
  assert.equal(
    await otherProcess(join(out, 'direct.db'), 'select count(*) from tasks'),
    await otherProcess(join(d.home, 'store.db'), 'select count(*) from tasks'),
  );
  assert.equal(existsSync(join(d.home, 'daemon.json')), false);
});
