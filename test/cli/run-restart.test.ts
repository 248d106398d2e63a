import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { alive, waitFor } from '../../devkit/wait.js';
import { cliEnv, cliSpawn, startDaemonCli, tempHome, startDaemon } from '../../devkit/daemon.js';
import { httpGet, operatorCall } from '../../devkit/http.js';
import { openLease } from '../../devkit/lease.js';

/**
 * A daemon that restarts under a live `agentteam run`: the runtime gets a
 * fresh authorization from the new daemon at the token file path it already
 * has, and keeps working without being restarted; where that cannot be (the
 * new daemon is at another address, or none comes back), `run` stops the
 * runtime and exits 3 with one line saying why.
 */
const NODE = process.execPath;

// Prints its pid and credential paths, then idles until it is killed.
const CHILD = `console.log(JSON.stringify({pid:process.pid,file:process.env.AGENTTEAM_EXEC_TOKEN_FILE,base:process.env.AGENTTEAM_EXEC_BASE_URL}));setInterval(()=>{},1e6)`;

interface Live {
  run: ChildProcess;
  child: { pid: number; file: string; base: string };
  stderr: () => string;
  exit: Promise<number | null>;
}

async function startRun(
  env: NodeJS.ProcessEnv,
  track: (pid: number) => void,
  extra: string[] = [],
): Promise<Live> {
  const run = cliSpawn(
    ['run', '--server', 's1', '--agent', 'a1', ...extra, '--', NODE, '-e', CHILD],
    env,
    track,
  );
  let err = '';
  run.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<number | null>((r) => run.on('exit', (code) => r(code)));
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    run.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      if (buf.includes('\n')) resolve(buf.slice(0, buf.indexOf('\n')));
    });
    run.on('exit', () => reject(new Error(`run exited early: ${err}`)));
  });
  return { run, child: JSON.parse(line) as Live['child'], stderr: () => err, exit };
}

const token = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
const catalogStatus = async (base: string, tok: string) =>
  (await httpGet(`${base}/catalog`, { authorization: `Bearer ${tok}` })).status;

/** The runtime's own view: `agentteam exec` with exactly the environment run gave it. */
function execAs(live: Live, env: NodeJS.ProcessEnv, args: string[]) {
  return cliEnv(['exec', ...args], {
    ...env,
    AGENTTEAM_EXEC_BASE_URL: live.child.base,
    AGENTTEAM_EXEC_TOKEN_FILE: live.child.file,
  });
}

test('run across daemon restarts: the same runtime gets a fresh authorization at the same token file path', async (t) => {
  const { env, track } = tempHome(t);
  const first = await startDaemonCli(env, track);
  const live = await startRun(env, track);
  const before = token(live.child.file);
  assert.equal(await catalogStatus(live.child.base, before), 200);
  /** The session and run ids the runtime's calls carry, as workspace get reports them. */
  const ids = async () => {
    const r = await execAs(live, env, ['workspace', 'get', '{}']);
    assert.equal(r.code, 0, r.stderr);
    const w = JSON.parse(r.stdout).data.workspace;
    return [w.sessionId, w.runId];
  };
  const minted = await ids();
  assert.match(minted[0], /^ses_[\w-]{20}$/);
  assert.match(minted[1], /^run_[\w-]{20}$/);
  assert.equal(
    (await execAs(live, env, ['task', 'create', '{"title":"before the restart"}'])).code,
    0,
  );

  await t.test(
    'daemon stop, then daemon start: the new daemon takes the same address and renews the lease',
    async () => {
      assert.equal((await cliEnv(['daemon', 'stop'], env)).code, 0);
      const second = await startDaemonCli(env, track);
      assert.equal(second.url, first.url, 'an ephemeral port is asked for at the last one used');
      assert.notEqual(second.pid, first.pid);
      assert.ok(
        await waitFor(
          async () =>
            token(live.child.file) !== '' &&
            (await catalogStatus(live.child.base, token(live.child.file))) === 200,
          5_000,
          50,
        ),
        'a fresh token at the same path works',
      );
      assert.notEqual(token(live.child.file), before);
      assert.equal(
        await catalogStatus(live.child.base, before),
        403,
        "the old daemon's token is worthless",
      );
      const created = await execAs(live, env, ['task', 'create', '{"title":"after the restart"}']);
      assert.equal(created.code, 0, created.stderr);
      assert.ok(alive(live.child.pid), 'the runtime was never restarted');
      assert.deepEqual(await ids(), minted, 'the same run keeps its session and run ids');
    },
  );

  await t.test('kill -9 of the daemon, then a new start: renewed the same way', async () => {
    const info = JSON.parse(readFileSync(`${env.AGENTTEAM_HOME}/daemon.json`, 'utf8')) as {
      pid: number;
    };
    const was = token(live.child.file);
    process.kill(info.pid, 'SIGKILL');
    assert.ok(await waitFor(() => !alive(info.pid), 5_000));
    const third = await startDaemonCli(env, track);
    assert.equal(third.url, first.url);
    assert.ok(
      await waitFor(
        async () =>
          token(live.child.file) !== was &&
          token(live.child.file) !== '' &&
          (await catalogStatus(live.child.base, token(live.child.file))) === 200,
        5_000,
        50,
      ),
    );
    const listed = await execAs(live, env, ['task', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(alive(live.child.pid), true);
  });

  await t.test(
    'the runtime ends as usual: run exits with its status and the renewed authorization is revoked',
    async () => {
      const tok = token(live.child.file);
      process.kill(live.child.pid, 'SIGTERM');
      assert.equal(await live.exit, 143);
      assert.equal(await catalogStatus(live.child.base, tok), 403);
      assert.equal(existsSync(live.child.file), false);
      assert.equal(live.stderr(), '', 'nothing to report');
    },
  );
});

test('run: a daemon that comes back at another address cannot serve the runtime, which is stopped (exit 3, one line)', async (t) => {
  const { env, track } = tempHome(t);
  const first = await startDaemonCli(env, track);
  const live = await startRun(env, track);
  assert.equal((await cliEnv(['daemon', 'stop'], env)).code, 0);
  // Someone else takes the old port meanwhile: the new daemon has to listen elsewhere.
  const squatter = createServer();
  await new Promise<void>((r) =>
    squatter.listen(Number(new URL(first.url).port), '127.0.0.1', () => r()),
  );
  t.after(() => squatter.close());
  const second = await startDaemonCli(env, track);
  assert.notEqual(second.url, first.url);
  assert.equal(await live.exit, 3);
  const lines = live.stderr().trim().split('\n');
  assert.equal(lines.length, 1, live.stderr());
  assert.match(
    lines[0]!,
    new RegExp(
      `^agentteam: the daemon restarted at ${second.url}, not at ${first.url} where the runtime reaches it; stopped the runtime$`,
    ),
  );
  assert.ok(await waitFor(() => !alive(live.child.pid), 2_000), 'the runtime was stopped');
});

test('run: a daemon that does not come back within --restart-wait: the runtime is stopped (exit 3, one line)', async (t) => {
  const { env, track } = tempHome(t);
  await startDaemonCli(env, track);
  const live = await startRun(env, track, ['--restart-wait', '1']);
  const stoppedAt = Date.now();
  assert.equal((await cliEnv(['daemon', 'stop'], env)).code, 0);
  assert.equal(await live.exit, 3);
  const waited = Date.now() - stoppedAt;
  assert.ok(waited >= 1_000 && waited < 6_000, `run waited ${waited} ms`);
  assert.equal(
    live.stderr(),
    'agentteam: the daemon went away and none came back within 1 s; stopped the runtime\n',
  );
  assert.equal(alive(live.child.pid), false);
});

test('run: a runtime replaced by a new lease for its session is not re-leased (the old behaviour)', async (t) => {
  const { env, track } = tempHome(t);
  await startDaemonCli(env, track);
  const old = await startRun(env, track, ['--session', 'sess1']);
  const replacement = await startRun(env, track, ['--session', 'sess1']);
  assert.ok(
    await waitFor(
      async () => (await catalogStatus(old.child.base, token(replacement.child.file))) === 200,
      3_000,
    ),
  );
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(existsSync(old.child.file), false, 'its directory is gone and stays gone');
  assert.ok(alive(old.child.pid), 'the replaced runtime process is not touched');
  process.kill(old.child.pid, 'SIGTERM');
  assert.equal(await old.exit, 143);
  process.kill(replacement.child.pid, 'SIGTERM');
  assert.equal(await replacement.exit, 143);
});

test('lease route: resumeDir must be a runtime directory name that nobody holds, claimed with its resume secret', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const held = await openLease(d, { serverId: 's1', agentId: 'a1' });
  t.after(() => held.close());
  const name = basename(dirname(held.data.tokenFile));
  const secret = (held.data as { resumeSecret?: string }).resumeSecret;
  for (const bad of ['../x', 'ABCDEF0123456789ABCDEF0123456789', 'a'.repeat(33), '']) {
    const r = await operatorCall(d, 'POST', '/api/v1/runtimes', {
      serverId: 's1',
      agentId: 'a1',
      resumeDir: bad,
      resumeSecret: secret,
    });
    assert.equal(r.status, 400, bad);
    assert.equal(JSON.parse(r.body).error.code, 'invalid_request');
  }
  const taken = await operatorCall(d, 'POST', '/api/v1/runtimes', {
    serverId: 's1',
    agentId: 'a2',
    resumeDir: name,
    resumeSecret: secret,
  });
  assert.equal(taken.status, 409);
  assert.equal(JSON.parse(taken.body).error.code, 'already_exists');
  assert.equal(held.token().length > 0, true, 'the holder keeps its token file');
  const unproven = await operatorCall(d, 'POST', '/api/v1/runtimes', {
    serverId: 's1',
    agentId: 'a3',
    resumeDir: 'f'.repeat(32),
  });
  assert.equal(
    unproven.status,
    403,
    'a free name is not handed out without the secret it was named after',
  );
  assert.equal(existsSync(join(d.home, 'runtime', 'f'.repeat(32))), false);
});
