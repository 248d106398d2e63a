import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileStore } from '../../daemon/profile/profile-store.js';
import { projectAgent, safeBaseUrl } from '../../daemon/profile/projection.js';
import { parseLaunch } from '../../daemon/profile/launch.js';

function temp(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-profile-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'profile.json');
}

test('base URL keeps scheme, host, port and path only', () => {
  assert.equal(
    safeBaseUrl('https://user:pw@api.example.com:8443/v1/x?key=SECRET#frag'),
    'https://api.example.com:8443/v1/x',
  );
  assert.equal(safeBaseUrl('not a url SECRET'), null);
  assert.equal(safeBaseUrl('file:///etc/SECRET'), null);
  assert.equal(safeBaseUrl(null), null);
});

test('absent profile is empty; invalid file keeps the previous one; every load bumps the revision', (t) => {
  const path = temp(t);
  const logs: string[] = [];
  const store = new ProfileStore(path, (m) => logs.push(m));
  assert.equal(store.profile.agents.length, 0);
  const r0 = store.revision;
  writeFileSync(path, JSON.stringify({ agents: [{ id: 'a1', runtime: 'claude' }], teams: [] }));
  const r1 = store.reload();
  assert.ok(r1.ok);
  assert.notEqual(r1.revision, r0);
  assert.equal(store.profile.agents[0]!.displayName, 'a1');
  writeFileSync(path, '{"agents": [');
  const bad = store.reload();
  assert.equal(bad.ok, false);
  assert.equal(bad.revision, r1.revision);
  assert.equal(store.profile.agents.length, 1);
  assert.match(logs.join('\n'), /not valid JSON/);
  writeFileSync(
    path,
    JSON.stringify({ agents: [{ id: 'a1', runtime: 'emacs', headers: { x: 'SECRET' } }] }),
  );
  assert.equal(store.reload().ok, false);
  assert.doesNotMatch(logs.join('\n'), /SECRET/);
  writeFileSync(path, JSON.stringify({ agents: [{ id: 'a1', runtime: 'claude' }], teams: [] }));
  const same = store.reload();
  assert.ok(same.ok);
  assert.notEqual(same.revision, r1.revision, 'a reload that changes nothing still bumps');
});

test('projection carries names and counts, never values or paths', () => {
  const agent = {
    id: 'a1',
    displayName: 'A',
    runtime: 'codex' as const,
    model: 'm',
    baseUrl: 'https://u:SECRETPW@h/p?SECRETQ#SECRETF',
    headers: { 'X-Api-Key': 'SECRETV', Authorization: 'Bearer SECRETT' },
    apiKeyEnv: 'OPENAI_API_KEY',
    allowedPaths: ['/home/SECRETPATH', '/srv'],
    denyTools: [],
    launch: parseLaunch(undefined, 'agents[0].launch', []),
  };
  const view = projectAgent(agent, {
    agents: [agent],
    teams: [
      { teamId: 't1', handle: 'h', displayName: 'T', members: [{ kind: 'agent', handle: 'a1' }] },
    ],
  });
  assert.deepEqual(view, {
    id: 'a1',
    displayName: 'A',
    runtime: 'codex',
    model: 'm',
    baseUrl: 'https://h/p',
    headerNames: ['authorization', 'x-api-key'],
    apiKeyEnv: 'OPENAI_API_KEY',
    filesystem: { allowedPathCount: 2 },
    turns: { command: false, deadlineSeconds: 1200, maxRunning: 1, queueLimit: 100 },
    teams: ['t1'],
  });
  assert.doesNotMatch(JSON.stringify(view), /SECRET/);
});
