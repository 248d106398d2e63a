import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectAgent, waitUntil } from '../../devkit/client-tools.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * $AGENTTEAM_HOME/tools/ is watched: declarations added, changed, broken,
 * removed (and the folder itself made or deleted) take effect within 2 s
 * without `daemon reload`, through `agentteam tools list` and an official
 * MCP SDK client that is told by notifications/tools/list_changed.
 */
const NODE = process.execPath;
const none = { type: 'object', properties: {}, additionalProperties: false };
const decl = (name: string, description: string, out = name) => ({
  name,
  description,
  needs: none,
  annotations: { readOnlyHint: true },
  transport: {
    type: 'command',
    argv: [NODE, '-e', `process.stdout.write(${JSON.stringify(out)})`],
  },
});
const text = (r: any) => (r.content as { text: string }[]).map((c) => c.text).join('');
const WITHIN_MS = 2_000;

test('tools/ is watched: new, changed, bad and removed declarations take effect within 2 s, with a change notice each time', async (t) => {
  const h = await prepareHome(t);
  const dir = join(h.home, 'tools');
  // The daemon makes tools/ at start; the first step begins without it, as a first-time user who removed it would.
  rmSync(dir, { recursive: true });
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());
  const tools = async () => new Map((await agent.client.listTools()).tools.map((x) => [x.name, x]));
  const timings: string[] = [];
  /** Waits for the MCP client to see `cond` and for a new list_changed notice; records how long it took. */
  const effect = async (
    what: string,
    cond: (m: Map<string, { description?: string }>) => boolean,
  ) => {
    const notices = agent.changes.count;
    const since = Date.now();
    await waitUntil(
      async () => agent.changes.count > notices && cond(await tools()),
      WITHIN_MS,
      25,
    );
    timings.push(`${what} ${Date.now() - since} ms`);
  };

  await t.test('the folder is created with a declaration in it', async () => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'hello.json'), JSON.stringify(decl('hello', 'says hello')));
    await effect('new folder and file', (m) => m.get('hello')?.description === 'says hello');
    const r = await agent.client.callTool({ name: 'hello', arguments: {} });
    assert.equal(text(r), 'hello');
    const listed = await h.cli(['tools', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^hello\s+declared\s+command\s+read-only/m);
  });

  await t.test(
    'a changed declaration (rewritten in place, and replaced by rename as editors do)',
    async () => {
      writeFileSync(
        join(dir, 'hello.json'),
        JSON.stringify(decl('hello', 'says hello again', 'again')),
      );
      await effect('in-place edit', (m) => m.get('hello')?.description === 'says hello again');
      assert.equal(text(await agent.client.callTool({ name: 'hello', arguments: {} })), 'again');
      writeFileSync(
        join(dir, '.hello.json.swp'),
        JSON.stringify(decl('hello', 'renamed into place', 'renamed')),
      );
      renameSync(join(dir, '.hello.json.swp'), join(dir, 'hello.json'));
      await effect('rename over', (m) => m.get('hello')?.description === 'renamed into place');
      assert.equal(text(await agent.client.callTool({ name: 'hello', arguments: {} })), 'renamed');
    },
  );

  await t.test('a bad file is reported as at start, and the good ones stay', async () => {
    writeFileSync(join(dir, 'broken.json'), '{\n  "name": "broken",\n  oops\n}');
    writeFileSync(join(dir, 'second.json'), JSON.stringify(decl('second', 'another tool')));
    await effect('bad and good file', (m) => m.has('second') && m.has('hello'));
    const listed = await h.cli(['tools', 'list']);
    assert.equal(listed.code, 1);
    assert.match(listed.stderr, /broken\.json:3:3: /);
    assert.match(listed.stdout, /^second\s+declared/m);
  });

  await t.test('a removed declaration disappears; then the whole folder', async () => {
    rmSync(join(dir, 'second.json'));
    await effect('removed file', (m) => !m.has('second') && m.has('hello'));
    await assert.rejects(agent.client.callTool({ name: 'second', arguments: {} }), /Unknown tool/);
    rmSync(dir, { recursive: true });
    await effect('removed folder', (m) => !m.has('hello'));
    const listed = await h.cli(['tools', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.doesNotMatch(listed.stdout, /declared/);
  });

  await t.test('a folder made again is watched again', async () => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'back.json'), JSON.stringify(decl('back', 'came back')));
    await effect('folder made again', (m) => m.has('back'));
  });

  await t.test(
    'a folder moved away and replaced by a new one: the new one is watched',
    async () => {
      renameSync(dir, `${dir}.old`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'fresh.json'), JSON.stringify(decl('fresh', 'in the new folder')));
      await effect('folder replaced', (m) => m.has('fresh') && !m.has('back'));
      writeFileSync(
        join(`${dir}.old`, 'stale.json'),
        JSON.stringify(decl('stale', 'in the moved folder')),
      );
      writeFileSync(
        join(dir, 'later.json'),
        JSON.stringify(decl('later', 'written after the swap')),
      );
      await effect('file in the new folder', (m) => m.has('later'));
      assert.equal((await tools()).has('stale'), false, 'the moved folder is not read');
    },
  );

  await t.test(
    'an event that changes no declaration (a chmod, a file that is not *.json) sends no notice',
    async () => {
      const notices = agent.changes.count;
      chmodSync(join(dir, 'fresh.json'), 0o600);
      writeFileSync(join(dir, 'notes.txt'), 'not a declaration');
      await new Promise((r) => setTimeout(r, 1_500));
      assert.equal(agent.changes.count, notices);
    },
  );
  t.diagnostic(`took effect after: ${timings.join(', ')}`);
});

test('daemon reload --help says what it reloads and that tools/ needs no reload', async (t) => {
  const h = await prepareHome(t, { start: false });
  const r = await h.cli(['daemon', 'reload', '--help']);
  assert.equal(r.code, 0, r.stderr);
  for (const what of ['profile.json', 'kb.json', 'tools/*.json', 'SIGHUP'])
    assert.ok(r.stdout.includes(what), `${what} in: ${r.stdout}`);
  assert.match(r.stdout, /watched/);
});
