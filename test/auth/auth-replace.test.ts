import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startDaemon } from '../../daemon/server.js';
import { FORBIDDEN_BODY } from '../../daemon/http/runtime-auth.js';
import { cliSpawn, tempHome, startDaemonCli } from '../../devkit/daemon.js';
import { requestLease, operatorToken } from '../../devkit/lease.js';
import { send } from '../../devkit/http.js';

/**
 * Replacement: a new lease for the same server, agent and session revokes
 * its predecessor before it answers, whether asked for by a lease request or
 * by `agentteam run`; the old credential is dead from then on.
 */

async function inProcessDaemon(t: import('node:test').TestContext) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-repl-'));
  const daemon = await startDaemon({ home, log: () => undefined });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  return { daemon, op: operatorToken(home) };
}

const catalogStatus = async (base: string, tok: string) =>
  (await send(`${base}/catalog`, 'GET', { authorization: `Bearer ${tok}` })).status;

test('replacement: a new lease for the same server, agent and session revokes its predecessor first', async (t) => {
  const { daemon, op } = await inProcessDaemon(t);
  const first = await requestLease(daemon.url, op, {
    serverId: 's',
    agentId: 'a',
    sessionName: 'sess-1',
  });
  t.after(() => first.close());
  const firstToken = first.token();
  const firstDir = first.body.data!.privateDir;
  assert.equal(await catalogStatus(first.body.data!.execBaseUrl, firstToken), 200);

  const second = await requestLease(daemon.url, op, {
    serverId: 's',
    agentId: 'a',
    sessionName: 'sess-1',
  });
  t.after(() => second.close());
  // By the time the new lease answers, the old one is revoked and its directory removed.
  assert.equal(existsSync(firstDir), false, 'the old token directory is gone');
  const old = await send(`${first.body.data!.execBaseUrl}/catalog`, 'GET', {
    authorization: `Bearer ${firstToken}`,
  });
  assert.deepEqual([old.status, old.body], [403, FORBIDDEN_BODY]);
  assert.equal(await catalogStatus(second.body.data!.execBaseUrl, second.token()), 200);
  await first.ended; // the old lease stream was closed by the revocation
  assert.equal(daemon.store.get(first.body.data!.authorizationId), undefined);

  // Not a replacement: another session, another agent, or no session at all.
  const others = await Promise.all([
    requestLease(daemon.url, op, { serverId: 's', agentId: 'a', sessionName: 'sess-2' }),
    requestLease(daemon.url, op, { serverId: 's', agentId: 'b', sessionName: 'sess-1' }),
    requestLease(daemon.url, op, { serverId: 's', agentId: 'a' }),
    requestLease(daemon.url, op, { serverId: 's', agentId: 'a' }),
  ]);
  t.after(() => {
    for (const l of others) l.close();
  });
  for (const l of [second, ...others])
    assert.equal(await catalogStatus(l.body.data!.execBaseUrl, l.token()), 200);
  assert.equal(daemon.store.stats().active, 5);
  // The label is not the identity: each lease has its own minted session and run.
  const ids = [second, ...others].map((l) => [l.body.data!.sessionId, l.body.data!.runId]);
  assert.equal(new Set(ids.flat()).size, 10);
  for (const [s, r] of ids) {
    assert.match(s!, /^ses_/);
    assert.match(r!, /^run_/);
  }
});

test('a lease body that sets its own session or run id is refused: the daemon mints them', async (t) => {
  const { daemon, op } = await inProcessDaemon(t);
  for (const field of ['sessionId', 'runId']) {
    const r = await requestLease(daemon.url, op, { serverId: 's', agentId: 'a', [field]: 'x1' });
    r.close();
    assert.equal(r.status, 400);
    assert.equal(r.body.error?.code, 'invalid_request');
    assert.match(
      r.body.error!.message,
      new RegExp(`^${field} is not a lease field: the daemon mints`),
    );
  }
  assert.equal(daemon.store.stats().active, 0);
});

test('replacement through agentteam run: the old runtime keeps running with a dead credential', async (t) => {
  const { env, track } = tempHome(t);
  await startDaemonCli(env, track);
  const child =
    "const fs=require('fs');console.log(JSON.stringify({file:process.env.AGENTTEAM_EXEC_TOKEN_FILE,base:process.env.AGENTTEAM_EXEC_BASE_URL,token:fs.readFileSync(process.env.AGENTTEAM_EXEC_TOKEN_FILE,'utf8')}));setInterval(()=>{},1e6)";
  const start = async () => {
    const run = cliSpawn(
      [
        'run',
        '--server',
        's',
        '--agent',
        'a',
        '--session',
        'chat-9',
        '--',
        process.execPath,
        '-e',
        child,
      ],
      env,
      track,
    );
    const line = await new Promise<string>((resolve) => {
      let buf = '';
      run.stdout!.setEncoding('utf8').on('data', (d: string) => {
        buf += d;
        if (buf.includes('\n')) resolve(buf.slice(0, buf.indexOf('\n')));
      });
    });
    return JSON.parse(line) as { file: string; base: string; token: string };
  };
  const a = await start();
  assert.equal(await catalogStatus(a.base, a.token), 200);
  const b = await start();
  assert.equal(await catalogStatus(a.base, a.token), 403);
  assert.equal(existsSync(dirname(a.file)), false);
  assert.equal(await catalogStatus(b.base, b.token), 200);
});

/** Starts an Exec upload that sends its headers and half its body, then nothing; resolves once it is in flight. */
