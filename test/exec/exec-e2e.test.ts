import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cli, startDaemon, startRuntime } from '../../devkit/daemon.js';
import { call, closeHttp } from '../../devkit/http.js';

test.after(() => closeHttp());

test('run -> exec task create - / task list through the CLI; the task survives a daemon restart', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const node = JSON.stringify(process.execPath);
  const bin = JSON.stringify(BIN);
  const script = `printf '%s' '{"title":"x"}' | ${node} ${bin} exec task create - && ${node} ${bin} exec task list`;
  const r = await cli(d.home, ['run', '--server', 's1', '--agent', 'a1', '--', 'sh', '-c', script]);
  assert.equal(r.code, 0, r.stderr);
  const [created, listed] = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(created.ok, true);
  assert.equal(created.data.task.title, 'x');
  assert.deepEqual(
    listed.data.tasks.map((x: { id: string }) => x.id),
    [created.data.task.id],
  );

  await d.stop();
  await d.start();
  const again = await cli(d.home, [
    'run',
    '--server',
    's1',
    '--agent',
    'a1',
    '--',
    'sh',
    '-c',
    `${node} ${bin} exec task list`,
  ]);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout).data.tasks, [created.data.task]);
  // Another server's view of the store is separate.
  const other = await cli(d.home, [
    'run',
    '--server',
    's2',
    '--agent',
    'a1',
    '--',
    'sh',
    '-c',
    `${node} ${bin} exec task list`,
  ]);
  assert.deepEqual(JSON.parse(other.stdout).data.tasks, []);
});

const SECRETS = [
  'HDRVALUE',
  'USERINFO',
  'PASSWORD',
  'QUERYSECRET',
  'FRAGSECRET',
  'PATHSECRET',
  'SOURCEID',
  'APIKEYVALUE',
];

test('agent list/get never return header values, URL userinfo/query/fragment, source ids or paths; reload invalidates cursors', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const agents = Array.from({ length: 3 }, (_, i) => ({
    id: `agent-${i}`,
    displayName: `Agent ${i}`,
    runtime: 'claude',
    model: 'm1',
    baseUrl: `https://USERINFO:PASSWORD@api.example.com:8443/v1?token=QUERYSECRET#FRAGSECRET`,
    headers: { 'X-Api-Key': 'HDRVALUE', Authorization: 'Bearer HDRVALUE' },
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    apiKey: 'APIKEYVALUE',
    sourceId: 'SOURCEID',
    filesystem: { allowedPaths: ['/home/PATHSECRET', '/srv/PATHSECRET/x'] },
  }));
  writeFileSync(
    join(d.home, 'profile.json'),
    JSON.stringify({
      agents,
      teams: [
        {
          teamId: 't1',
          handle: 'core',
          displayName: 'Core',
          members: [{ kind: 'agent', handle: 'agent-1' }],
        },
      ],
    }),
  );
  await cli(d.home, ['daemon', 'reload']);
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const got = await call(rt, 'agent', 'get', { id: 'agent-1' });
  assert.equal(got.status, 200, got.text);
  assert.deepEqual(got.json.data.agent, {
    id: 'agent-1',
    displayName: 'Agent 1',
    runtime: 'claude',
    model: 'm1',
    baseUrl: 'https://api.example.com:8443/v1',
    headerNames: ['authorization', 'x-api-key'],
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    filesystem: { allowedPathCount: 2 },
    turns: { command: false, deadlineSeconds: 1200, maxRunning: 1, queueLimit: 100 },
    teams: ['t1'],
  });
  const list = await call(rt, 'agent', 'list', { limit: 2 });
  for (const text of [got.text, list.text])
    for (const s of SECRETS) assert.ok(!text.includes(s), `${s} leaked`);
  assert.equal(list.json.data.agents.length, 2);
  const page2 = await call(rt, 'agent', 'list', { limit: 2, cursor: list.json.data.nextCursor });
  assert.deepEqual(
    page2.json.data.agents.map((a: { id: string }) => a.id),
    ['agent-2'],
  );
  const mismatch = await call(rt, 'agent', 'list', {
    limit: 2,
    query: 'agent',
    cursor: list.json.data.nextCursor,
  });
  assert.equal(mismatch.status, 400);
  assert.equal(mismatch.json.error.details[0].path, '/cursor');
  // `daemon reload` bumps the profile revision: the old cursor is refused, never page one.
  await cli(d.home, ['daemon', 'reload']);
  const stale = await call(rt, 'agent', 'list', { limit: 2, cursor: list.json.data.nextCursor });
  assert.equal(stale.status, 400);
  assert.equal(stale.json.error.code, 'validation_failed');
  const missing = await call(rt, 'agent', 'get', { id: 'nobody' });
  assert.equal(missing.status, 404);
  const team = await call(rt, 'team', 'get', { teamId: 't1' });
  assert.equal(team.json.data.team.displayName, 'Core');
});
