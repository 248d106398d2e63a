import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, dirname, join } from 'node:path';
import { alive, waitFor } from '../../devkit/wait.js';
import { BIN, cliSpawn, startDaemon, startDaemonCli, tempHome } from '../../devkit/daemon.js';
import { openLease, operatorToken, requestLease } from '../../devkit/lease.js';

/**
 * What a daemon restart must not hand to someone else: a runtime's token
 * file path (re-leasing its directory needs the secret only the `run` that
 * held it has, not just the operator token), and the runtime's calls while
 * no daemon holds the port (another account's process may bind it).
 */

test("after a restart, re-leasing a runtime's directory needs its resume secret; the operator token alone is refused", async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const held = await openLease(d, { serverId: 's1', agentId: 'a1' });
  const name = basename(dirname(held.data.tokenFile));
  const secret = (held.data as { resumeSecret?: string }).resumeSecret;
  d.kill9();
  held.close();
  assert.ok(await waitFor(() => !alive(d.pid), 5_000));
  await d.start();

  for (const guess of [undefined, 'x'.repeat(43), `${secret ?? ''}x`]) {
    // requestLease: a granted lease is a stream that stays open until closed.
    const r = await requestLease(d.url, operatorToken(d), {
      serverId: 's1',
      agentId: 'a1',
      resumeDir: name,
      ...(guess === undefined ? {} : { resumeSecret: guess }),
    });
    r.close();
    assert.equal(r.status, 403, `resume secret ${guess}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error?.code, 'forbidden');
  }
  const renewed = await openLease(d, {
    serverId: 's1',
    agentId: 'a1',
    resumeDir: name,
    resumeSecret: secret,
  });
  t.after(() => renewed.close());
  assert.equal(
    renewed.data.tokenFile,
    held.data.tokenFile,
    'the holder of the secret gets its path back',
  );
  const twice = await requestLease(d.url, operatorToken(d), {
    serverId: 's1',
    agentId: 'a2',
    resumeDir: name,
    resumeSecret: secret,
  });
  twice.close();
  assert.equal(twice.status, 409, 'a directory in use is not taken twice, secret or not');
});

// A runtime that calls `agentteam exec` again and again and reports each call as a JSON line.
// Calls made once the marker file exists say so in their body, so the stand-in can tell them apart.
const CALLER = `const {spawnSync}=require('child_process');const fs=require('fs');const [bin,marker]=process.argv.slice(1);
console.log(JSON.stringify({pid:process.pid}));
(function next(n){const armed=fs.existsSync(marker);const r=spawnSync(process.execPath,[bin,'exec','task','create',JSON.stringify({title:(armed?'armed ':'')+'call '+n})],{encoding:'utf8'});
console.log(JSON.stringify({n,armed,code:r.status,err:r.stderr.trim().split('\\n')[0]}));setTimeout(()=>next(n+1),20);})(0);`;

interface Call {
  n: number;
  armed: boolean;
  code: number;
  err: string;
}

test("after kill -9 of the daemon, a process that binds the freed port receives none of the runtime's calls", async (t) => {
  const { home, env, track } = tempHome(t);
  const first = await startDaemonCli(env, track);
  const marker = join(home, 'armed');
  const run = cliSpawn(
    ['run', '--server', 's1', '--agent', 'a1', '--', process.execPath, '-e', CALLER, BIN, marker],
    env,
    track,
  );
  const calls: Call[] = [];
  let buf = '';
  run.stdout!.setEncoding('utf8').on('data', (s: string) => {
    buf += s;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = JSON.parse(buf.slice(0, nl)) as Call | { pid: number };
      buf = buf.slice(nl + 1);
      if ('n' in line) calls.push(line);
    }
  });
  assert.ok(
    await waitFor(() => calls.some((c) => c.code === 0), 20_000),
    `the runtime's calls work first: ${JSON.stringify(calls)}`,
  );

  process.kill(first.pid, 'SIGKILL');
  assert.ok(await waitFor(() => !alive(first.pid), 5_000));
  // One call that began after the death has ended: `run` has seen its lease connection drop by then.
  const dead = calls.length + 1;
  assert.ok(await waitFor(() => calls.length > dead, 10_000));

  const received: string[] = [];
  const standIn = createServer((req, res) => {
    let body = '';
    req
      .setEncoding('utf8')
      .on('data', (c: string) => (body += c))
      .on('end', () => {
        received.push(
          `${req.method} ${req.url} auth=${req.headers.authorization ? 'yes' : 'no'} ${body}`,
        );
        res.writeHead(503).end();
      });
  });
  await new Promise<void>((r) =>
    standIn.listen(Number(new URL(first.url).port), '127.0.0.1', () => r()),
  );
  t.after(() => standIn.close());
  writeFileSync(marker, '');
  assert.ok(
    await waitFor(() => calls.filter((c) => c.armed).length >= 5, 20_000),
    'the runtime kept calling',
  );
  assert.deepEqual(received, [], 'the stand-in got nothing');
  const armed = calls.filter((c) => c.armed);
  assert.ok(
    armed.every((c) => c.code === 3),
    JSON.stringify(armed),
  );
});
