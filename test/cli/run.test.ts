import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { BIN, cliEnv, cliSpawn, startDaemonCli, tempHome } from '../../devkit/daemon.js';
import { httpGet } from '../../devkit/http.js';
import { waitFor } from '../../devkit/wait.js';
import { FORBIDDEN_BODY } from '../../daemon/http/runtime-auth.js';

const NODE = process.execPath;

/** Collects a child's stdout lines as they arrive. */
function lines(child: import('node:child_process').ChildProcess): {
  all: string[];
  next: () => Promise<string>;
} {
  const all: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  let buf = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const l = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(l);
      else all.push(l);
    }
  });
  return {
    all,
    next: () => (all.length ? Promise.resolve(all.shift()!) : new Promise((r) => waiters.push(r))),
  };
}

function exitOf(child: import('node:child_process').ChildProcess): Promise<number | null> {
  return new Promise((r) => child.on('exit', (code) => r(code)));
}

/** In-child GET {base}/catalog without keep-alive (a pooled socket would hold the child open). */
const GET_STATUS = `const getStatus=(tok)=>new Promise((res,rej)=>require('http').get(process.env.AGENTTEAM_EXEC_BASE_URL+'/catalog',{agent:false,headers:{authorization:'Bearer '+tok}},(r)=>{r.resume();res(r.statusCode)}).on('error',rej));`;

const PRINT_CRED = `const fs=require('fs');console.log(JSON.stringify({token:fs.readFileSync(process.env.AGENTTEAM_EXEC_TOKEN_FILE,'utf8'),base:process.env.AGENTTEAM_EXEC_BASE_URL,file:process.env.AGENTTEAM_EXEC_TOKEN_FILE}));`;

test('run: environment, exit status, revocation on child exit and on kill -9 of run', async (t) => {
  const { env, track } = tempHome(t);
  await startDaemonCli(env, track);

  await t.test(
    'inherited AGENTTEAM_EXEC_/AGENTTEAM_MCP_ variables never reach the child, any case',
    async () => {
      const polluted = {
        ...env,
        AGENTTEAM_EXEC_TOKEN: 'leak1',
        agentteam_exec_base_url: 'leak2',
        Agentteam_Mcp_Url: 'leak3',
        AGENTTEAM_EXEC_TOKEN_FILE: '/leak4',
        KEEP_ME: 'yes',
      };
      const r = await cliEnv(
        [
          'run',
          '--server',
          'srv1',
          '--agent',
          'ag1',
          '--',
          NODE,
          '-e',
          'console.log(JSON.stringify(process.env))',
        ],
        polluted,
      );
      assert.equal(r.code, 0, r.stderr);
      const childEnv = JSON.parse(r.stdout) as Record<string, string>;
      const owned = Object.keys(childEnv)
        .filter((k) => /^agentteam_(exec|mcp)_/i.test(k))
        .sort();
      assert.deepEqual(owned, [
        'AGENTTEAM_EXEC_BASE_URL',
        'AGENTTEAM_EXEC_TOKEN_FILE',
        'AGENTTEAM_MCP_URL',
      ]);
      assert.doesNotMatch(r.stdout, /leak\d/);
      assert.equal(childEnv.KEEP_ME, 'yes');
      assert.match(
        childEnv.AGENTTEAM_EXEC_BASE_URL!,
        /\/api\/internal\/exec\/servers\/srv1\/agents\/ag1$/,
      );
      assert.match(
        childEnv.AGENTTEAM_MCP_URL!,
        /\/api\/internal\/mcp\/servers\/srv1\/agents\/ag1$/,
      );
    },
  );

  await t.test("exit status is the command's; a signal becomes 128+n", async () => {
    assert.equal(
      (
        await cliEnv(
          ['run', '--server', 's', '--agent', 'a', '--', NODE, '-e', 'process.exit(7)'],
          env,
        )
      ).code,
      7,
    );
    assert.equal(
      (
        await cliEnv(
          [
            'run',
            '--server',
            's',
            '--agent',
            'a',
            '--',
            NODE,
            '-e',
            'process.kill(process.pid,"SIGTERM")',
          ],
          env,
        )
      ).code,
      143,
    );
  });

  await t.test(
    'child exit: its last token gets 403 within 1 s and its directory is gone',
    async () => {
      const r = await cliEnv(
        [
          'run',
          '--server',
          's',
          '--agent',
          'a',
          '--',
          NODE,
          '-e',
          PRINT_CRED +
            GET_STATUS +
            `getStatus(require('fs').readFileSync(process.env.AGENTTEAM_EXEC_TOKEN_FILE,'utf8')).then(console.log)`,
        ],
        env,
      );
      const exitedAt = Date.now();
      assert.equal(r.code, 0, r.stderr);
      const [credLine, statusLine] = r.stdout.trim().split('\n');
      const cred = JSON.parse(credLine!) as { token: string; base: string; file: string };
      assert.equal(statusLine, '200', 'the token worked while the child ran');
      const res = await httpGet(`${cred.base}/catalog`, { authorization: `Bearer ${cred.token}` });
      assert.equal(res.status, 403);
      assert.equal(res.body, FORBIDDEN_BODY);
      assert.ok(Date.now() - exitedAt < 1000);
      assert.equal(existsSync(dirname(cred.file)), false);
    },
  );

  await t.test('kill -9 of run: token 403 and directory gone within 2 s', async () => {
    const run = cliSpawn(
      [
        'run',
        '--server',
        's',
        '--agent',
        'a',
        '--',
        NODE,
        '-e',
        `${PRINT_CRED}setTimeout(()=>{},60000)`,
      ],
      env,
      track,
    );
    const out = lines(run);
    const cred = JSON.parse(await out.next()) as { token: string; base: string; file: string };
    assert.equal(
      (await httpGet(`${cred.base}/catalog`, { authorization: `Bearer ${cred.token}` })).status,
      200,
    );
    process.kill(run.pid!, 'SIGKILL');
    const killedAt = Date.now();
    assert.ok(
      await waitFor(
        async () =>
          (await httpGet(`${cred.base}/catalog`, { authorization: `Bearer ${cred.token}` }))
            .status === 403,
        2000,
        20,
      ),
    );
    assert.ok(await waitFor(() => !existsSync(dirname(cred.file)), 2000 - (Date.now() - killedAt)));
    assert.ok(Date.now() - killedAt < 2000);
  });

  await t.test(
    'SIGTERM to run reaches the command; run exits 128+15 and the token is revoked',
    async () => {
      const run = cliSpawn(
        [
          'run',
          '--server',
          's',
          '--agent',
          'a',
          '--',
          NODE,
          '-e',
          `${PRINT_CRED}setTimeout(()=>{},60000)`,
        ],
        env,
        track,
      );
      const out = lines(run);
      const exited = exitOf(run);
      const cred = JSON.parse(await out.next()) as { token: string; base: string; file: string };
      process.kill(run.pid!, 'SIGTERM');
      assert.equal(await exited, 143);
      assert.equal(
        (await httpGet(`${cred.base}/catalog`, { authorization: `Bearer ${cred.token}` })).status,
        403,
      );
      assert.equal(existsSync(dirname(cred.file)), false);
    },
  );

  await t.test(
    '--ttl 4: at least two distinct tokens within 10 s, each accepted, child never restarted',
    async () => {
      const script =
        GET_STATUS +
        `
      const fs=require('fs');const seen=new Set();let ok=0;const t0=Date.now();
      console.log('start '+process.pid);
      const tick=async()=>{
        const tok=fs.readFileSync(process.env.AGENTTEAM_EXEC_TOKEN_FILE,'utf8');
        if(!seen.has(tok)){seen.add(tok);
          if(await getStatus(tok)===200)ok++;}
        if(seen.size>=2||Date.now()-t0>10000){console.log(JSON.stringify({distinct:seen.size,ok,ms:Date.now()-t0}));return;}
        setTimeout(tick,100);};
      tick();`;
      const r = await cliEnv(
        ['run', '--server', 's', '--agent', 'a', '--ttl', '4', '--', NODE, '-e', script],
        env,
      );
      assert.equal(r.code, 0, r.stderr);
      const out = r.stdout.trim().split('\n');
      assert.equal(out.filter((l) => l.startsWith('start ')).length, 1, 'started once');
      const res = JSON.parse(out[out.length - 1]!) as { distinct: number; ok: number; ms: number };
      assert.ok(res.distinct >= 2, JSON.stringify(res));
      assert.equal(res.ok, res.distinct);
      assert.ok(res.ms < 10000);
    },
  );
});

for (const umask of ['000', '077']) {
  test(`token directory 0700 and file 0600 under umask ${umask}`, async (t) => {
    const { env, track } = tempHome(t);
    const started = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const sh = spawn('sh', ['-c', `umask ${umask} && exec "${NODE}" "${BIN}" daemon start`], {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      sh.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      sh.on('exit', (code) => resolve({ code, out }));
    });
    assert.equal(started.code, 0);
    track((JSON.parse(started.out) as { pid: number }).pid);
    const r = await cliEnv(
      [
        'run',
        '--server',
        's',
        '--agent',
        'a',
        '--',
        'sh',
        '-c',
        `umask ${umask}; stat -c '%a' "$(dirname "$AGENTTEAM_EXEC_TOKEN_FILE")" "$AGENTTEAM_EXEC_TOKEN_FILE" "$(dirname "$(dirname "$AGENTTEAM_EXEC_TOKEN_FILE")")"`,
      ],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['700', '600', '700']);
  });
}
