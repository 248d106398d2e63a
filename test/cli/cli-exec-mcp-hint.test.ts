import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { cleanEnv, pool, runCli } from '../../devkit/cli.js';

/**
 * A first-time agent tries `agentteam exec message send …`. Messages,
 * memory and knowledge are MCP tools, so the refusal's hint names the tool
 * and says where the runtime's MCP endpoint is; a plain typo keeps the help
 * pointer.
 */

test('exec of an MCP tool as domain/action: the usage envelope names the tool and AGENTTEAM_MCP_URL', async () => {
  const cases = [
    [['message', 'send', '{"target":"channel:general","content":"hi"}'], ['message_send']],
    [['message', 'history-read'], ['message_history_read']],
    [['memory', 'search', '{"query":"x"}'], ['memory_search']],
    [['kb', 'fetch'], ['kb_fetch']],
    // An unknown action under a word that starts tool names: every such tool is named.
    [
      ['message', 'post'],
      ['message_send', 'message_history_read', 'message_react'],
    ],
  ] as const;
  const results = await pool(
    cases.map(
      ([argv]) =>
        () =>
          runCli(['exec', ...argv], { env: cleanEnv() }),
    ),
    3,
  );
  cases.forEach(([argv, tools], i) => {
    const r = results[i]!;
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    const { error } = JSON.parse(r.stdout) as { error: { code: string; hint: string } };
    assert.equal(error.code, 'usage');
    for (const tool of tools) assert.match(error.hint, new RegExp(`\`${tool}\``), error.hint);
    assert.match(error.hint, /MCP tools?/);
    assert.match(error.hint, /AGENTTEAM_MCP_URL/);
    assert.match(r.stderr, /AGENTTEAM_MCP_URL/, 'people read it too');
  });
});

test('an unknown domain that names no MCP tool keeps the help pointer', async () => {
  const r = await runCli(['exec', 'tsak', 'list'], { env: cleanEnv() });
  assert.equal(r.code, 2);
  const { error } = JSON.parse(r.stdout) as { error: { message: string; hint: string } };
  assert.match(error.message, /did you mean "task"/);
  assert.equal(error.hint, 'See `agentteam exec --help`.');
});
