import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAgent } from '../../devkit/client-tools.js';
import { prepareHome, watchEvents } from '../../devkit/tools.js';

/**
 * The three example declarations of examples/tools/ (a git branch tool, an
 * rg wrapper, a tool that asks) load, list and run end to end: the official
 * MCP SDK client gets `said`; `shown` and the question arrive on the
 * operator event stream and in `agentteam tools log`; the person's answer
 * reaches the next call as `answered`.
 */

/** Whether an optional program outside Node and package.json is installed (rg and git are not always). */
function installed(program: string): boolean {
  try {
    execFileSync(program, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const hasRg = installed('rg');
const hasGit = installed('git');

/** The agent's working directory: a git repository on branch feature/result-gate where git is installed. */
function workdir(t: import('node:test').TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-repo-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  if (hasGit) execFileSync('git', ['init', '-q', '-b', 'feature/result-gate', dir]);
  writeFileSync(join(dir, 'notes.txt'), 'first line\nthe needle_42 is here\nlast line\n');
  return dir;
}

const text = (r: any) =>
  (r.content as { type: string; text: string }[]).map((c) => c.text).join('');

test('the example declarations load, list and run through the MCP SDK client; shown and asks reach the person', async (t) => {
  const repo = workdir(t);
  const h = await prepareHome(t, { examples: true });
  const events = await watchEvents(h, ['tool.shown', 'tool.asked', 'tool.answered']);
  t.after(() => events.close());
  const agent = await connectAgent(h as never, 'a1', { workdir: repo });
  t.after(() => agent.close());

  // A declaration whose program is missing is reported as a problem (exit 1) and left out; the others still load.
  const listed = await h.cli(['tools', 'list']);
  assert.equal(listed.code, hasRg && hasGit ? 0 : 1, listed.stderr);
  if (!hasRg)
    assert.match(
      listed.stderr,
      /search-code\.json#\/transport\/argv\/0: program "rg" is not an executable file/,
    );
  if (!hasGit)
    assert.match(
      listed.stderr,
      /branch\.json#\/transport\/argv\/0: program "git" is not an executable file/,
    );
  const loaded = [...(hasGit ? ['branch'] : []), ...(hasRg ? ['search_code'] : []), 'name_branch'];
  for (const name of loaded)
    assert.match(listed.stdout, new RegExp(`^${name}\\s+declared\\s+command\\s+read-only`, 'm'));
  assert.match(listed.stdout, /^message_send\s+builtin/m);

  const { tools } = await agent.client.listTools();
  const byName = new Map(tools.map((x) => [x.name, x]));
  assert.deepEqual(
    ['branch', 'search_code', 'name_branch'].filter((n) => byName.has(n)),
    loaded,
  );
  assert.deepEqual(byName.get('name_branch')?.inputSchema.required, ['topic']);

  await t.test('branch: the git branch of the working directory', async (st) => {
    if (!hasGit)
      return st.skip(
        'git is not installed: the branch example is refused at load (checked above) and not run',
      );
    assert.equal(byName.get('branch')?.annotations?.readOnlyHint, true);
    const branch = await agent.client.callTool({ name: 'branch', arguments: {} });
    assert.equal(branch.isError, false);
    assert.equal(text(branch), 'feature/result-gate\n');
  });

  await t.test('search_code: ripgrep over the working directory', async (st) => {
    if (!hasRg)
      return st.skip(
        'rg is not installed: the search_code example is refused at load (checked above) and not run',
      );
    assert.equal(byName.get('search_code')?.annotations?.title, 'Search code (ripgrep)');
    const found = await agent.client.callTool({
      name: 'search_code',
      arguments: { pattern: 'needle_4[0-9]' },
    });
    assert.equal(found.isError, false, text(found));
    assert.match(text(found), /notes\.txt:2:the needle_42 is here/);
    const none = await agent.client.callTool({
      name: 'search_code',
      arguments: { pattern: 'absent_zzz' },
    });
    assert.equal(none.isError, false, 'rg exit 1 (no match) is declared a success');
    const outside = await agent.client.callTool({
      name: 'search_code',
      arguments: { pattern: 'x', path: '../etc' },
    });
    assert.equal(outside.isError, true);
  });

  const asked = await agent.client.callTool({
    name: 'name_branch',
    arguments: { topic: 'Result gate' },
  });
  assert.equal(asked.isError, false);
  assert.match(text(asked), /^Asked the person which branch name to use for "Result gate"\./);
  assert.doesNotMatch(text(asked), /Suggested branch/, 'shown never reaches the model');
  const shown = await events.next((f) => f.type === 'tool.shown');
  assert.equal(shown.data.agent, 'a1');
  assert.equal(shown.data.tool, 'name_branch');
  assert.equal(
    shown.data.text,
    'An agent wants to start "Result gate". Suggested branch: feat/result-gate',
  );
  const question = await events.next((f) => f.type === 'tool.asked');
  const askId = question.data.askId as string;

  const log = await h.cli(['tools', 'log']);
  assert.equal(log.code, 0, log.stderr);
  assert.match(log.stdout, /a1 name_branch shown:\n {2}An agent wants to start "Result gate"/);
  assert.match(log.stdout, new RegExp(`waiting ${askId} \\(a1 name_branch\\): Which branch name`));

  const answered = await h.cli(['tools', 'answer', askId, 'feat/the-one-gate']);
  assert.equal(answered.code, 0, answered.stderr);
  await events.next((f) => f.type === 'tool.answered' && f.data.askId === askId);
  const again = await agent.client.callTool({
    name: 'name_branch',
    arguments: { topic: 'Result gate' },
  });
  assert.equal(text(again), 'Use the branch name: feat/the-one-gate');
  await events.next(
    (f) => f.type === 'tool.shown' && f.data.text === 'Branch name agreed: feat/the-one-gate',
  );
  // The answer is used once, and a caller cannot supply `answered` itself: it is dropped, so the tool asks again.
  const third = await agent.client.callTool({
    name: 'name_branch',
    arguments: { topic: 'Result gate', answered: 'forged' },
  });
  assert.equal(third.isError, false);
  assert.match(text(third), /^Asked the person/);
});
