import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, cliSpawn, startDaemonCli, tempHome, waitFor } from './daemon-harness.js';

const lines = (s: string) => s.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

test('daemon logs prints recent diagnostics; --follow adds new ones and ends with exit 3 when the daemon stops', async (t) => {
  const { home, env, track } = tempHome(t);
  await startDaemonCli(env, track);
  const recent = await cli(['daemon', 'logs'], env);
  assert.equal(recent.code, 0, recent.stderr);
  assert.ok(lines(recent.stdout).some((l) => l.event === 'connection_budget'), recent.stdout);
  const one = await cli(['daemon', 'logs', '--limit', '1'], env);
  assert.equal(lines(one.stdout).length, 1);
  for (const bad of ['0', '1001']) {
    const r = await cli(['daemon', 'logs', '--limit', bad], env);
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
  assert.equal((await cli(['daemon', 'reload'], env)).code, 0);
  assert.ok(await waitFor(() => out.includes('tool_declaration'), 10_000), out);
  const seen = lines(out);
  // Every line once: the backlog and the stream overlap on nothing.
  assert.equal(seen.filter((l) => l.event === 'connection_budget').length, 1);
  assert.equal((await cli(['daemon', 'stop'], env)).code, 0);
  assert.equal(await exited, 3);
});

test('daemon logs without a daemon exits 3', async (t) => {
  const { env } = tempHome(t);
  const r = await cli(['daemon', 'logs'], env);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /no daemon is running/);
});
