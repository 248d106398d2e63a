import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, runCli } from '../../devkit/cli.js';
import { defaultCatalog } from '../../catalog/catalog.js';

/** Whether `shell` runs here (`--version` exits 0). */
function has(shell: string): boolean {
  return spawnSync(shell, ['--version'], { stdio: 'ignore' }).status === 0;
}

function scriptFile(t: { after(fn: () => void): void }, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-completion-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'script');
  writeFileSync(file, text);
  return file;
}

/** What the bash script offers for the words typed so far (the last one is being completed). */
function complete(file: string, words: readonly string[]): string[] {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      `source "$1"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _agentteam; printf '%s\\n' "\${COMPREPLY[@]}"`,
      'x',
      file,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

test("bash: agentteam exec task <TAB> offers the catalog's task actions, and the tree follows the program", async (t) => {
  if (!has('bash')) return t.skip('bash is not installed');
  const r = await runCli(['completion', 'bash'], { env: cleanEnv() });
  assert.equal(r.code, 0, r.stderr);
  const file = scriptFile(t, r.stdout);
  const taskActions = defaultCatalog()
    .actionsOf('task')
    .map((e) => e.descriptor.action)
    .sort();
  assert.deepEqual(complete(file, ['agentteam', 'exec', 'task', '']).sort(), taskActions);
  assert.deepEqual(complete(file, ['agentteam', 'exec', 'sch']), ['scheduled-message']);
  assert.ok(complete(file, ['agentteam', '']).includes('daemon'));
  assert.deepEqual(complete(file, ['agentteam', 'daemon', 'st']).sort(), [
    'start',
    'status',
    'stop',
  ]);
  // Operator reads are in the tree, with the options declared from the catalog.
  assert.deepEqual(complete(file, ['agentteam', 'workflow', 'run', '']).sort(), ['list', 'show']);
  assert.ok(complete(file, ['agentteam', 'task', 'list', '--']).includes('--status'));
  // An option's value does not end the path: options of the same command still complete.
  assert.ok(
    complete(file, ['agentteam', 'message', 'post', '--target', 'channel:x', '--re']).includes(
      '--reply-to',
    ),
  );
  assert.deepEqual(complete(file, ['agentteam', 'nosuch', '']), []);
});

test('zsh: the script loads and completes through compadd', async (t) => {
  const r = await runCli(['completion', 'zsh'], { env: cleanEnv() });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^#compdef agentteam/);
  if (!has('zsh')) return t.skip("zsh is not installed: only the script's header was checked");
  const file = scriptFile(t, r.stdout);
  const z = spawnSync(
    'zsh',
    [
      '-f',
      '-c',
      `source "$1"; compadd() { shift; print -l -- "$@"; }; words=(agentteam exec task ''); CURRENT=4; _agentteam`,
      'x',
      file,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(z.status, 0, z.stderr);
  assert.deepEqual(
    z.stdout.split('\n').filter(Boolean).sort(),
    defaultCatalog()
      .actionsOf('task')
      .map((e) => e.descriptor.action)
      .sort(),
  );
});

test('completion refuses another shell with a usage envelope', async () => {
  const r = await runCli(['completion', 'fish'], { env: cleanEnv() });
  assert.equal(r.code, 2);
  assert.equal(JSON.parse(r.stdout).error.code, 'usage');
});
