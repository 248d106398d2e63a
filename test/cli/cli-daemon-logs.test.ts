import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, cliSpawn, startDaemonCli, tempHome } from '../../devkit/daemon.js';
import { waitFor } from '../../devkit/wait.js';

const lines = (s: string) =>
  s
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('daemon logs prints recent diagnostics; --follow adds new ones and ends with exit 3 when the daemon stops', async (t) => {
  const { home, env, track } = tempHome(t);
  await startDaemonCli(env, track);
  const recent = await cliEnv(['daemon', 'logs'], env);
  assert.equal(recent.code, 0, recent.stderr);
  assert.ok(
    lines(recent.stdout).some((l) => l.event === 'connection_budget'),
    recent.stdout,
  );
  const one = await cliEnv(['daemon', 'logs', '--limit', '1'], env);
  assert.equal(lines(one.stdout).length, 1);
  for (const bad of ['0', '1001']) {
    const r = await cliEnv(['daemon', 'logs', '--limit', bad], env);
    assert.equal(r.code, 2, bad);
    assert.equal(JSON.parse(r.stdout).error.code, 'usage');
  }

  const follow = cliSpawn(['daemon', 'logs', '--follow', '--limit', '1000'], env, track);
  let out = '';
  follow.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((r) => follow.once('exit', (code) => r(code)));
  assert.ok(await waitFor(() => out.includes('connection_budget'), 10_000), out);
  // A declaration the daemon refuses on reload is a diagnostic: it appears on the stream.
  mkdirSync(join(home, 'tools'), { recursive: true });
  writeFileSync(join(home, 'tools', 'broken.json'), '{ not json');
  assert.equal((await cliEnv(['daemon', 'reload'], env)).code, 0);
  assert.ok(await waitFor(() => out.includes('tool_declaration'), 10_000), out);
  const seen = lines(out);
  // Every line once: the backlog and the stream overlap on nothing.
  assert.equal(seen.filter((l) => l.event === 'connection_budget').length, 1);
  assert.equal((await cliEnv(['daemon', 'stop'], env)).code, 0);
  assert.equal(await exited, 3);
});

test('only a stream opened with logs=1 carries daemon.log events', async (t) => {
  const { env, track } = tempHome(t);
  const { url } = await startDaemonCli(env, track);
  const token = readFileSync(join(env.AGENTTEAM_HOME!, 'operator.token'), 'utf8').trim();
  const open = async (query: string) => {
    const ac = new AbortController();
    t.after(() => ac.abort());
    const res = await fetch(`${url}/api/v1/events?${query}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: ac.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let text = '';
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += Buffer.from(value).toString('utf8');
        }
      } catch {
        // aborted at the end of the test
      }
    })();
    return () => text;
  };
  const plain = await open('client_tools=0&heartbeat_s=1');
  const logs = await open('client_tools=0&logs=1&heartbeat_s=1');
  assert.ok(
    await waitFor(() => plain().includes('event: hello') && logs().includes('event: hello'), 5_000),
  );
  mkdirSync(join(env.AGENTTEAM_HOME!, 'tools'), { recursive: true });
  writeFileSync(join(env.AGENTTEAM_HOME!, 'tools', 'broken.json'), '{ not json');
  assert.equal((await cliEnv(['daemon', 'reload'], env)).code, 0);
  assert.ok(await waitFor(() => logs().includes('event: daemon.log'), 5_000), logs());
  // A heartbeat later, the plain stream has moved on without ever seeing one, its seq without a gap.
  const beats = plain().split('event: heartbeat').length;
  assert.ok(await waitFor(() => plain().split('event: heartbeat').length > beats, 5_000));
  assert.doesNotMatch(plain(), /daemon\.log/);
  const seqs = [...plain().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
  );
  const bad = await fetch(`${url}/api/v1/events?logs=2`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(bad.status, 400);
});

test('daemon logs without a daemon exits 3', async (t) => {
  const { env } = tempHome(t);
  const r = await cliEnv(['daemon', 'logs'], env);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /no daemon is running/);
});
