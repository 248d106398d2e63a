import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { call, operatorCall } from '../../devkit/http.js';
import { callTool } from '../../devkit/knowledge.js';

/**
 * The first hour of a new user: the folders the README and the guidance
 * name exist after `daemon start`, the guidance gives the agent a path it can
 * use (a runtime has no AGENTTEAM_HOME), and the shipped profile example is
 * one the daemon accepts.
 */
const FOLDERS = ['memory', 'kb', 'tools'];
const EXAMPLE = fileURLToPath(new URL('../../../examples/profile.json', import.meta.url));

function freshHome(plant?: (home: string) => void): string {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-hf-'));
  plant?.(home);
  return home;
}

test('daemon start makes memory/, kb/ and tools/ (0700) in a fresh home', async (t) => {
  const d = await startDaemon({ home: freshHome() });
  t.after(() => d.close());
  for (const name of FOLDERS) {
    const st = lstatSync(join(d.home, name));
    assert.ok(st.isDirectory(), name);
    assert.equal(st.mode & 0o777, 0o700, name);
  }
});

test('links planted at those names are left alone: nothing is made or re-moded through them', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'agentteam-outside-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  mkdirSync(join(out, 'shared'), { mode: 0o755 });
  const home = freshHome((h) => {
    symlinkSync(join(out, 'shared'), join(h, 'memory'));
    symlinkSync(join(out, 'not-yet'), join(h, 'kb'));
    symlinkSync(join(out, 'shared'), join(h, 'tools'));
  });
  const d = await startDaemon({ home });
  t.after(() => d.close());
  for (const name of FOLDERS)
    assert.ok(lstatSync(join(home, name)).isSymbolicLink(), `${name} is still the link`);
  assert.equal(statSync(join(out, 'shared')).mode & 0o777, 0o755, 'the target keeps its mode');
  assert.equal(existsSync(join(out, 'not-yet')), false, "nothing made at a dangling link's target");
});

test("the guidance names the agent's memory folder by its absolute path, and a note written there is found", async (t) => {
  const d = await startDaemon({ home: freshHome() });
  t.after(() => d.close());
  const rt = await startRuntime(d, { agent: 'a1' });
  t.after(() => rt.close());
  const guidance = readFileSync(rt.env.AGENTTEAM_GUIDANCE_FILE ?? '', 'utf8');
  // Usually the runtime's shell has no AGENTTEAM_HOME (the default home is ~/.agentteam), so only an absolute path helps.
  const folder = join(d.home, 'memory', 'a1');
  assert.ok(guidance.includes(`\`${folder}/\``), guidance);
  assert.doesNotMatch(guidance, /\$AGENTTEAM_HOME/);
  // Following the guidance literally works: the agent makes its folder and writes a note there.
  mkdirSync(folder);
  writeFileSync(
    join(folder, 'deploy.md'),
    '# Deploys\n\nThe staging deploy needs the flamingo flag.\n',
  );
  const r = await callTool(rt.mcpUrl, rt.token(), 'memory_search', { query: 'flamingo' });
  assert.equal(r.isError, false, JSON.stringify(r.data));
  assert.equal((r.data as { hits: { path: string }[] }).hits[0]?.path, 'deploy.md');
});

test("examples/profile.json is accepted by the daemon's profile loader, and its agents are listed", async (t) => {
  const home = freshHome((h) => copyFileSync(EXAMPLE, join(h, 'profile.json')));
  const d = await startDaemon({ home });
  t.after(() => d.close());
  const reload = await operatorCall(d, 'POST', '/api/v1/reload');
  assert.equal(reload.status, 200, reload.body);
  const result = (JSON.parse(reload.body) as { data: { ok: boolean; error?: string } }).data;
  assert.equal(result.ok, true, result.error);
  const rt = await startRuntime(d, { agent: 'builder' });
  t.after(() => rt.close());
  const listed = await call(rt, 'agent', 'list', {});
  const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { agents: { id: string }[] };
  assert.equal(listed.status, 200, listed.text);
  const ids = (listed.json as { data: { agents: { id: string }[] } }).data.agents.map((a) => a.id);
  assert.deepEqual(ids, example.agents.map((a) => a.id).sort());
});
