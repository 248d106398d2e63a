import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProc } from '../../devkit/inproc.js';

const PROFILE = {
  sourceId: 'src-1',
  agents: [
    {
      id: 'a1',
      displayName: 'Lead',
      runtime: 'claude',
      headers: { 'X-Secret': 'sekrit-value' },
      filesystem: { allowedPaths: ['/home/x'] },
      note: 'kept',
    },
    { id: 'b2', runtime: 'codex' },
  ],
  teams: [
    {
      teamId: 't1',
      displayName: 'Core',
      members: [
        { kind: 'agent', handle: 'a1' },
        { kind: 'agent', handle: 'b2' },
        { kind: 'human', handle: 'ana' },
      ],
    },
  ],
};

test('agent create/update/delete edit profile.json atomically, keep untouched fields and bump the revision', async (t) => {
  const p = await startInProc(t);
  const file = join(p.home, 'profile.json');
  writeFileSync(file, JSON.stringify(PROFILE));
  p.services.reloadProfile();
  const call = await p.runtime('s1', 'a1', { workdir: '/secret/path' } as never);
  const before = (await call('profile', 'get', {})).json.data.profile;
  assert.deepEqual(
    [before.agentCount, before.teamCount, before.self.id, before.self.headerNames],
    [2, 1, 'a1', ['x-secret']],
  );
  const page = await call('agent', 'list', { limit: 1 });
  const oldCursor = page.json.data.nextCursor;

  const created = await call('agent', 'create', {
    id: 'c3',
    displayName: 'Reviewer',
    runtime: 'opencode',
    model: 'm1',
    expectedRevision: before.revision,
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  assert.notEqual(created.json.data.revision, before.revision);
  assert.deepEqual([created.json.data.agent.id, created.json.data.agent.model], ['c3', 'm1']);
  const stale = await call('agent', 'list', { limit: 1, cursor: oldCursor });
  assert.deepEqual(
    [stale.status, stale.json.error.code, stale.json.error.details[0].path],
    [400, 'validation_failed', '/cursor'],
  );
  const conflict = await call('agent', 'create', { id: 'd4', expectedRevision: before.revision });
  assert.equal(conflict.json.error.code, 'revision_conflict');
  assert.equal((await call('agent', 'create', { id: 'c3' })).json.error.code, 'already_exists');

  const updated = await call('agent', 'update', { id: 'a1', model: 'opus', apiKeyEnv: 'LEAD_KEY' });
  assert.equal(updated.json.data.agent.model, 'opus');
  const cleared = await call('agent', 'update', { id: 'a1', model: null });
  assert.equal(cleared.json.data.agent.model, null);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const a1 = doc.agents.find((a: { id: string }) => a.id === 'a1');
  assert.deepEqual(a1.headers, { 'X-Secret': 'sekrit-value' });
  assert.deepEqual(
    [a1.note, a1.apiKeyEnv, doc.sourceId, 'model' in a1],
    ['kept', 'LEAD_KEY', 'src-1', false],
  );
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.ok(!JSON.stringify(cleared.json).includes('sekrit-value'));

  const del = await call('agent', 'delete', { id: 'b2' });
  assert.deepEqual(del.json.data.deleted, { id: 'b2' });
  const after = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(
    after.agents.map((a: { id: string }) => a.id),
    ['a1', 'c3'],
  );
  assert.deepEqual(
    after.teams[0].members.map((m: { handle: string }) => m.handle),
    ['a1', 'ana'],
  );
  assert.equal((await call('agent', 'delete', { id: 'b2' })).json.error.code, 'not_found');
  assert.equal(
    (await call('agent', 'update', { id: 'zz', model: 'x' })).json.error.code,
    'not_found',
  );
  assert.equal((await call('agent', 'get', { id: 'b2' })).json.error.code, 'not_found');
  assert.deepEqual(
    readdirSync(p.home).filter((f) => f.includes('.tmp')),
    [],
  );

  for (const bad of [
    { id: 'e5', baseUrl: 'https://user:pw@host/x' },
    { id: 'e5', baseUrl: 'https://host/x?key=1' },
    { id: 'bad id' },
    { id: 'e5', apiKeyEnv: 'not-a-var' },
  ]) {
    assert.equal(
      (await call('agent', 'create', bad)).json.error.code,
      'validation_failed',
      JSON.stringify(bad),
    );
  }

  const ws = (await call('workspace', 'get', {})).json.data.workspace;
  assert.deepEqual(ws, {
    serverId: 's1',
    agentId: 'a1',
    sessionId: null,
    runId: null,
    workdirSet: true,
    teams: [{ teamId: 't1', handle: 't1', displayName: 'Core' }],
  });
});

test('an invalid profile.json is never overwritten by an edit', async (t) => {
  const p = await startInProc(t);
  const file = join(p.home, 'profile.json');
  writeFileSync(file, '{"agents": [');
  const call = await p.runtime();
  const r = await call('agent', 'create', { id: 'x1' });
  assert.equal(r.json.error.code, 'unavailable');
  assert.equal(readFileSync(file, 'utf8'), '{"agents": [');
  assert.equal((await call('profile', 'get', {})).json.data.profile.self, null);
});

test('agent edits with an idempotencyKey apply once and replay their first result', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  const first = await call('agent', 'create', { id: 'k1', idempotencyKey: 'add-k1' });
  const again = await call('agent', 'create', { id: 'k1', idempotencyKey: 'add-k1' });
  assert.deepEqual(again.json, first.json);
  const other = await call('agent', 'create', { id: 'k2', idempotencyKey: 'add-k1' });
  assert.equal(other.json.error.code, 'idempotency_conflict');
  const d1 = await call('agent', 'delete', { id: 'k1', idempotencyKey: 'del' });
  const d2 = await call('agent', 'delete', { id: 'k1', idempotencyKey: 'del' });
  assert.deepEqual(d2.json, d1.json);
});

test("agent update merges turn settings into launch; what runs and where stays the profile file's", async (t) => {
  const p = await startInProc(t);
  const file = join(p.home, 'profile.json');
  const declared = ['/usr/bin/true', '--flag'];
  writeFileSync(
    file,
    JSON.stringify({
      agents: [
        { id: 'a1', runtime: 'generic', launch: { command: declared, deadlineSeconds: 30 } },
      ],
      teams: [],
    }),
  );
  p.services.reloadProfile();
  const call = await p.runtime('s1', 'a1');
  const got = (await call('agent', 'get', { id: 'a1' })).json.data.agent;
  assert.deepEqual(got.turns, {
    command: true,
    deadlineSeconds: 30,
    maxRunning: 1,
    queueLimit: 100,
  });
  assert.doesNotMatch(JSON.stringify(got), /usr\/bin\/true/);

  const updated = await call('agent', 'update', {
    id: 'a1',
    launch: { maxRunning: 2, queueLimit: 5 },
  });
  assert.equal(updated.status, 200, JSON.stringify(updated.json));
  assert.deepEqual(updated.json.data.agent.turns, {
    command: true,
    deadlineSeconds: 30,
    maxRunning: 2,
    queueLimit: 5,
  });
  const onDisk = JSON.parse(readFileSync(file, 'utf8')).agents[0].launch;
  assert.deepEqual(onDisk, {
    command: declared,
    deadlineSeconds: 30,
    maxRunning: 2,
    queueLimit: 5,
  });

  for (const launch of [
    { command: ['/bin/sh'] },
    { binary: '/bin/sh' },
    { args: ['-x'] },
    {},
    { maxRunning: 17 },
  ]) {
    const refused = await call('agent', 'update', { id: 'a1', launch });
    assert.equal(refused.status, 400, JSON.stringify(launch));
    assert.equal(refused.json.error.code, 'validation_failed');
  }
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).agents[0].launch.command, declared);
});
