import { test, type TestContext } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon as startInProcess } from '../../daemon/server.js';
import { FakeClock } from '../../devkit/auth-clock.js';
import { closeHttp, post } from '../../devkit/http.js';
import type { Runtime } from '../../devkit/daemon.js';
import { cleanEnv, runCli } from '../../devkit/cli.js';

/* The idempotency records' life on the daemon's clock: how long a record replays and how many are kept. */

test.after(() => closeHttp());

function create(rt: Runtime, body: unknown, headers: Record<string, string> = {}) {
  return post(`${rt.base}/task/create`, rt.token(), JSON.stringify(body), headers);
}

/** The built CLI as a runtime would run it: the runtime's environment, nothing else. */
function exec(rt: Runtime, args: string[]) {
  return runCli(['exec', ...args], { env: cleanEnv(rt.env) });
}

/** An in-process daemon on an injected clock, with the record bound shrunk to 3. */
async function clockedDaemon(t: TestContext) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-idem-'));
  const clock = new FakeClock(Date.now());
  const daemon = await startInProcess({
    home,
    clock,
    log: () => undefined,
    idempotency: { maxRecords: 3 },
  });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  /** A fresh authorization, so its token is valid at the clock's current time. */
  const runtime = async (): Promise<Runtime> => {
    const auth = await daemon.store.create({ serverId: 's', agentId: 'a' });
    const base = `${daemon.url}/api/internal/exec/servers/s/agents/a`;
    return {
      // What `agentteam run` would inject, so the built CLI can be pointed at this daemon.
      env: { AGENTTEAM_EXEC_BASE_URL: base, AGENTTEAM_EXEC_TOKEN_FILE: auth.tokenFile },
      base,
      argv: [],
      mcpUrl: '',
      token: () => readFileSync(auth.tokenFile, 'utf8').trim(),
      close: async () => undefined,
    };
  };
  return { clock, runtime };
}

test("records expire after 24 h on the daemon's clock: a replay before, a new effect after", async (t) => {
  const { clock, runtime } = await clockedDaemon(t);
  const rt = await runtime();
  const first = await create(rt, { title: 'expiring', idempotencyKey: 'exp-1' });
  assert.equal(first.status, 200);
  clock.advance(24 * 60 * 60 * 1000 - 1);
  const rt2 = await runtime();
  const within = await create(rt2, { title: 'expiring', idempotencyKey: 'exp-1' });
  assert.equal(within.text, first.text, 'replayed within the window');
  const viaCli = await exec(rt2, ['task', 'create', '{"title":"expiring","requestId":"exp-1"}']);
  assert.equal(viaCli.code, 0, viaCli.stderr);
  assert.deepEqual(JSON.parse(viaCli.stdout), first.json, 'the CLI gets the replay too');
  // A different body within the window still conflicts.
  assert.equal((await create(rt2, { title: 'other', idempotencyKey: 'exp-1' })).status, 409);
  clock.advance(1);
  const rt3 = await runtime();
  const afterCli = await exec(rt3, [
    'task',
    'create',
    '{"title":"other body is fine now","idempotencyKey":"exp-1"}',
  ]);
  assert.equal(afterCli.code, 0, afterCli.stdout);
  const after = { text: afterCli.stdout.trim(), json: JSON.parse(afterCli.stdout) };
  assert.notEqual(
    after.json.data.task.id,
    first.json.data.task.id,
    'a new effect once the record expired',
  );
  const replay = await create(rt3, { title: 'other body is fine now', idempotencyKey: 'exp-1' });
  assert.equal(replay.text, after.text, 'the new record replays in turn');
});

test('records are bounded: beyond the maximum the oldest are dropped first', async (t) => {
  const { clock, runtime } = await clockedDaemon(t);
  const rt = await runtime();
  const firsts: string[] = [];
  for (let i = 1; i <= 5; i++) {
    const r = await create(rt, { title: `bounded ${i}`, idempotencyKey: `b-${i}` });
    assert.equal(r.status, 200);
    firsts.push(r.json.data.task.id);
    clock.advance(1000);
  }
  // b-3, b-4, b-5 are kept (maximum 3): they replay.
  for (const i of [3, 4, 5]) {
    const r = await create(rt, { title: `bounded ${i}`, idempotencyKey: `b-${i}` });
    assert.equal(r.json.data.task.id, firsts[i - 1], `b-${i} replays`);
  }
  // b-1 was pruned: the same call is a new effect (through the CLI this time).
  const again = await exec(rt, ['task', 'create', '{"title":"bounded 1","idempotencyKey":"b-1"}']);
  assert.equal(again.code, 0, again.stdout);
  assert.notEqual(JSON.parse(again.stdout).data.task.id, firsts[0]);
  // b-2 was pruned too.
  const b2 = await create(rt, { title: 'bounded 2', idempotencyKey: 'b-2' });
  assert.notEqual(b2.json.data.task.id, firsts[1]);
});
