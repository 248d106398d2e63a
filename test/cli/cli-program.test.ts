import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as commander from 'commander';
import { parseExecArgv } from '../../cli/exec/argv.js';
import { buildProgram, type CommandName } from '../../cli/program.js';

/** Parses argv with the real declarations and returns what the command module would receive. */
async function parse(
  argv: string[],
): Promise<{ name: CommandName; opts: Record<string, unknown>; args: string[] }> {
  let got: { name: CommandName; opts: Record<string, unknown>; args: string[] } | undefined;
  const program = buildProgram(commander, async (name, cmd) => {
    got = { name, opts: cmd.opts(), args: cmd.args };
  });
  const quiet = (c: commander.Command): void => {
    c.configureOutput({ writeErr: () => {}, writeOut: () => {} });
    c.commands.forEach(quiet);
  };
  quiet(program);
  await program.parseAsync(['node', 'agentteam', ...argv]);
  assert.ok(got, 'no command ran');
  return got;
}

test('run passes everything after -- to the child, unknown options included', async () => {
  const r = await parse([
    'run',
    '--server',
    's1',
    '--agent',
    'a1',
    '--ttl',
    '60',
    '--runtime',
    'codex',
    '--',
    'claude',
    '--print',
    '-x',
    '--server',
    'other',
  ]);
  assert.equal(r.name, 'run');
  assert.deepEqual(r.opts, { server: 's1', agent: 'a1', ttl: 60, runtime: 'codex' });
  assert.deepEqual(r.args, ['claude', '--print', '-x', '--server', 'other']);
});

test('run without -- also stops parsing at the command', async () => {
  const r = await parse(['run', '--server', 's1', '--agent', 'a1', 'sh', '-c', 'echo hi']);
  assert.deepEqual(r.args, ['sh', '-c', 'echo hi']);
});

test('run rejects a bad --ttl or --runtime before any command code runs', async () => {
  await assert.rejects(
    parse(['run', '--server', 's', '--agent', 'a', '--ttl', '0', '--', 'x']),
    commander.CommanderError,
  );
  await assert.rejects(
    parse(['run', '--server', 's', '--agent', 'a', '--runtime', 'vim', '--', 'x']),
    commander.CommanderError,
  );
});

test('daemon and message commands receive their declared options', async () => {
  assert.deepEqual(
    await parse(['daemon', 'start', '--listen', '0.0.0.0:7000', '--foreground', '--allow-remote']),
    {
      name: 'daemon-start',
      opts: { listen: '0.0.0.0:7000', foreground: true, allowRemote: true },
      args: [],
    },
  );
  assert.deepEqual((await parse(['daemon', 'start'])).opts, { listen: '127.0.0.1:0' });
  for (const sub of ['status', 'stop', 'reload'])
    assert.equal((await parse(['daemon', sub])).name, `daemon-${sub}`);
  assert.deepEqual(
    await parse(['message', 'post', '--target', '#general', '--as', 'human:ana', 'hello there']),
    {
      name: 'message-post',
      opts: { target: '#general', as: 'human:ana' },
      args: ['hello there'],
    },
  );
  assert.deepEqual(
    await parse(['message', 'history', '--target', '#general', '--limit', '5', '--cursor', 'c1']),
    {
      name: 'message-history',
      opts: { target: '#general', limit: 5, cursor: 'c1' },
      args: [],
    },
  );
});

test('the exec grammar: flags anywhere, at most three operands, - and -- handled', () => {
  assert.deepEqual(parseExecArgv(['task', 'create', '--help']), {
    ok: true,
    opts: { help: true },
    args: ['task', 'create'],
  });
  assert.deepEqual(parseExecArgv(['--input-schema', 'task', 'get']), {
    ok: true,
    opts: { inputSchema: true },
    args: ['task', 'get'],
  });
  assert.deepEqual(parseExecArgv(['task', 'create', '-']), {
    ok: true,
    opts: {},
    args: ['task', 'create', '-'],
  });
  assert.deepEqual(parseExecArgv(['task', 'create', '--', '--help']), {
    ok: true,
    opts: {},
    args: ['task', 'create', '--help'],
  });
  assert.equal(parseExecArgv(['task', 'create', '--nope']).ok, false);
  assert.equal(parseExecArgv(['a', 'b', 'c', 'd']).ok, false);
});
