import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as commander from 'commander';
import { buildProgram } from '../../cli/program.js';
import { ERROR_TABLE, isErrorCode } from '../../catalog/errors.js';
import { BIN, pool } from '../../devkit/cli.js';
import { cliEnv, startDaemonCli, tempHome } from '../../devkit/daemon.js';

/**
 * What every command of the program's table prints on stdout, in success and
 * refusal cases: exactly one envelope line (`{"ok":true,"data":…}` or
 * `{"ok":false,"error":…}` with a code of the error table whose exit status
 * is the command's), or for a stream one JSON value a line. The exceptions
 * are the contract's own shapes (`daemon start`'s ready line, `token analyze
 * --json`'s report) and output for people: help, scripts, schemas, reports.
 */

type Kind = 'envelope' | 'stream' | 'json' | 'text';
/** argv, expected exit status, what stdout must be, and for a refusal the error code. */
type Case = readonly [argv: readonly string[], exit: number, kind: Kind, code?: string];

const NO_DAEMON: readonly Case[] = [
  [['exec', 'task', 'create', '{"title":"x"}'], 3, 'envelope', 'unavailable'],
  [['exec', 'nosuch', 'thing'], 2, 'envelope', 'usage'],
  [['daemon', 'start', '--store', 'mysql://u:p@h:1/db'], 2, 'envelope', 'usage'],
  [['daemon', 'status'], 3, 'envelope', 'unavailable'],
  [['daemon', 'stop'], 3, 'envelope', 'unavailable'],
  [['daemon', 'reload'], 3, 'envelope', 'unavailable'],
  [['daemon', 'logs'], 3, 'envelope', 'unavailable'],
  [['daemon', 'logs', '--limit', '0'], 2, 'envelope', 'usage'],
  [['watch'], 3, 'envelope', 'unavailable'],
  [['run', '--agent', 'a1', '--', 'true'], 3, 'envelope', 'unavailable'],
  [['run', '--agent', 'a:b', '--', 'true'], 2, 'envelope', 'usage'],
  [['run', '--agent', 'a1'], 2, 'envelope', 'usage'],
  // The daemon mints run ids: the old flag is refused by name, before any daemon is needed.
  [['run', '--agent', 'a1', '--run', 'r1', '--', 'true'], 2, 'envelope', 'usage'],
  [
    ['message', 'post', '--target', 'channel:general', '--as', 'human:ada', 'hi'],
    3,
    'envelope',
    'unavailable',
  ],
  [['message', 'post', '--target', 'nowhere', '--as', 'human:ada', 'hi'], 2, 'envelope', 'usage'],
  [['message', 'history', '--target', 'channel:general'], 3, 'envelope', 'unavailable'],
  [['token', 'analyze'], 3, 'envelope', 'unavailable'],
  [['token', 'analyze', '--session', '/nonexistent/session.jsonl'], 2, 'envelope', 'usage'],
  [['approval', 'decide', 'appr_123456', 'approve'], 3, 'envelope', 'unavailable'],
  [['approval', 'decide', 'appr_123456', 'perhaps'], 2, 'envelope', 'usage'],
  [['approval', 'get', 'appr_123456'], 3, 'envelope', 'unavailable'],
  [['approval', 'get', 'nope'], 2, 'envelope', 'usage'],
  [['approval', 'list'], 3, 'envelope', 'unavailable'],
  [['approval', 'hook'], 2, 'envelope', 'usage'],
  [['extension', 'install', '/nonexistent/ext.json'], 2, 'envelope', 'usage'],
  [['extension', 'list'], 3, 'envelope', 'unavailable'],
  [['extension', 'remove', 'Not-A-Name!'], 2, 'envelope', 'usage'],
  [['extension', 'remove', 'github'], 3, 'envelope', 'unavailable'],
  [['store', 'backup', '/nonexistent/copy.db'], 1, 'envelope', 'not_found'],
  [['console'], 3, 'envelope', 'unavailable'],
  [['device', 'pair'], 3, 'envelope', 'unavailable'],
  [['device', 'list'], 3, 'envelope', 'unavailable'],
  [['device', 'revoke', 'dev_0123456789abcdef'], 3, 'envelope', 'unavailable'],
  [['device', 'revoke', 'nope'], 2, 'envelope', 'usage'],
  [['serve'], 2, 'envelope', 'usage'],
  [['tools'], 2, 'envelope', 'usage'],
  [['tools', 'list'], 3, 'envelope', 'unavailable'],
  [['tools', 'log'], 3, 'envelope', 'unavailable'],
  [['tools', 'scopes'], 3, 'envelope', 'unavailable'],
  [['tools', 'answer', 'ask_1', 'yes'], 3, 'envelope', 'unavailable'],
  [['tools', 'check', '/nonexistent/tool.json'], 1, 'text'],
  [['audit'], 3, 'envelope', 'unavailable'],
  [['audit', '--since', '5 minutes'], 2, 'envelope', 'usage'],
  [['task', 'list'], 3, 'envelope', 'unavailable'],
  [['task', 'list', '--limit', '0'], 2, 'envelope', 'usage'],
  [['task', 'get', 'task_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['task', 'create', 'x'], 3, 'envelope', 'unavailable'],
  [['task', 'create', 'x', '--as', 'agent:a1'], 2, 'envelope', 'usage'],
  [['task', 'update', 'task_01J9Z3K8Q2', '--status', 'done'], 3, 'envelope', 'unavailable'],
  [['task', 'assign', 'task_01J9Z3K8Q2', 'a1'], 3, 'envelope', 'unavailable'],
  [['project', 'list'], 3, 'envelope', 'unavailable'],
  [['project', 'get', 'project_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['project', 'create', ''], 2, 'envelope', 'validation_failed'],
  [['review', 'list', 'task_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['scheduled-message', 'list'], 3, 'envelope', 'unavailable'],
  [['scheduled-message', 'get', 'sched_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['scheduled-message', 'runs', 'sched_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['workflow', 'run', 'list'], 3, 'envelope', 'unavailable'],
  [['turn', 'list'], 3, 'envelope', 'unavailable'],
  [['turn', 'show', 'turn_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['turn', 'cancel', 'turn_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['turn', 'cancel', 'nope'], 2, 'envelope', 'usage'],
  [['turn', 'retry', 'turn_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['turn', 'retry', 'task_01J9Z3K8Q2'], 2, 'envelope', 'usage'],
  [['workflow', 'run', 'show', 'wfr_01J9Z3K8Q2'], 3, 'envelope', 'unavailable'],
  [['completion', 'fish'], 2, 'envelope', 'usage'],
  [['nosuch'], 2, 'envelope', 'usage'],
  [['daemon'], 2, 'envelope', 'usage'],
];

/** With a daemon. `daemon stop` runs last, alone. */
const WITH_DAEMON = (copy: string, definition: string): readonly Case[] => [
  [['exec', 'task', 'list'], 3, 'envelope', 'unavailable'],
  [
    [
      'run',
      '--agent',
      'a1',
      '--',
      process.execPath,
      BIN,
      'exec',
      'task',
      'create',
      '{"title":"t"}',
    ],
    0,
    'envelope',
  ],
  [['daemon', 'start'], 1, 'envelope', 'already_exists'],
  [['daemon', 'status'], 0, 'envelope'],
  [['daemon', 'reload'], 0, 'envelope'],
  [['daemon', 'logs', '--limit', '5'], 0, 'stream'],
  // watch follows until interrupted (test/events/events-person.test.ts); a refused kind ends at once.
  [['watch', '--kind', 'no.such.kind'], 2, 'envelope', 'usage'],
  [['message', 'post', '--target', 'channel:general', '--as', 'human:ada', 'hi'], 0, 'envelope'],
  [['message', 'history', '--target', 'channel:general'], 0, 'envelope'],
  [['token', 'analyze', '--json'], 0, 'json'],
  [['token', 'analyze'], 0, 'text'],
  [['approval', 'list'], 0, 'envelope'],
  [['approval', 'get', 'appr_123456'], 1, 'envelope'],
  [['approval', 'decide', 'appr_123456', 'approve'], 1, 'envelope'],
  [['approval', 'hook'], 2, 'envelope', 'usage'],
  [['extension', 'list'], 0, 'envelope'],
  [['extension', 'remove', 'github'], 1, 'envelope'],
  [['store', 'backup', copy], 0, 'envelope'],
  [['console'], 0, 'text'],
  [['device', 'pair'], 0, 'envelope'],
  [['device', 'list'], 0, 'envelope'],
  [['device', 'revoke', 'dev_0123456789abcdef'], 1, 'envelope', 'not_found'],
  [['tools', '--schema'], 0, 'text'],
  [['tools', 'list', '--json'], 0, 'envelope'],
  [['tools', 'list'], 0, 'text'],
  [['tools', 'log', '--json'], 0, 'envelope'],
  [['tools', 'scopes', '--json'], 0, 'envelope'],
  [['tools', 'scopes'], 0, 'text'],
  [['tools', 'answer', 'ask_nope', 'yes'], 1, 'envelope'],
  [['tools', 'check'], 0, 'text'],
  [['audit', '--json'], 0, 'envelope'],
  [['audit', '--summary', '--json'], 0, 'envelope'],
  [['audit', '--cursor', 'garbage'], 1, 'envelope'],
  [['task', 'list'], 0, 'envelope'],
  [['task', 'get', 'task_01J9Z3K8Q2'], 1, 'envelope'],
  [['task', 'create', 'x', '--as', 'human:ada'], 0, 'envelope'],
  [['task', 'update', 'task_01J9Z3K8Q2', '--status', 'done'], 1, 'envelope', 'not_found'],
  [['task', 'assign', 'task_01J9Z3K8Q2', 'a1'], 1, 'envelope', 'not_found'],
  [['project', 'list'], 0, 'envelope'],
  [['project', 'get', 'project_01J9Z3K8Q2'], 1, 'envelope', 'not_found'],
  [['project', 'create', 'p'], 0, 'envelope'],
  [['review', 'list', 'task_01J9Z3K8Q2'], 1, 'envelope', 'not_found'],
  [['turn', 'list', '--state', 'running'], 0, 'envelope'],
  [['turn', 'show', 'turn_01J9Z3K8Q2'], 1, 'envelope', 'not_found'],
  [['turn', 'cancel', 'turn_01J9Z3K8Q2'], 1, 'envelope', 'not_found'],
  [['turn', 'retry', 'turn_01J9Z3K8Q2'], 1, 'envelope', 'not_found'],
  [['scheduled-message', 'list'], 0, 'envelope'],
  [['scheduled-message', 'get', 'sched_01J9Z3K8Q2'], 1, 'envelope'],
  [['scheduled-message', 'runs', 'sched_01J9Z3K8Q2'], 1, 'envelope'],
  [['workflow', 'run', 'list'], 0, 'envelope'],
  [['workflow', 'run', 'show', 'wfr_01J9Z3K8Q2'], 1, 'envelope'],
  [['extension', 'install', definition], 1, 'envelope'],
  [['completion', 'bash'], 0, 'text'],
  [['exec', '--help'], 0, 'text'],
];

function check(c: Case, r: { code: number | null; stdout: string; stderr: string }): void {
  const [argv, exit, kind, code] = c;
  const what = `agentteam ${argv.join(' ')}`;
  assert.equal(r.code, exit, `${what}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  if (kind === 'text') return;
  assert.ok(
    r.stdout.endsWith('\n'),
    `${what}: stdout ends with a line feed: ${JSON.stringify(r.stdout)}`,
  );
  const lines = r.stdout.slice(0, -1).split('\n');
  const values = lines.map((l) => {
    try {
      return JSON.parse(l) as unknown;
    } catch {
      return assert.fail(`${what}: a line that is not JSON: ${JSON.stringify(l)}`);
    }
  });
  if (kind === 'stream') return;
  assert.equal(lines.length, 1, `${what}: one line, got ${JSON.stringify(r.stdout)}`);
  if (kind === 'json') return;
  const env = values[0] as {
    ok?: unknown;
    data?: unknown;
    error?: { code?: unknown; message?: unknown };
  };
  assert.equal(typeof env.ok, 'boolean', `${what}: an envelope: ${r.stdout}`);
  assert.equal(env.ok, exit === 0, `${what}: ok goes with the exit status`);
  if (env.ok) {
    assert.ok('data' in env, what);
    return;
  }
  assert.ok(isErrorCode(env.error?.code), `${what}: a code of the error table: ${r.stdout}`);
  assert.equal(typeof env.error?.message, 'string');
  if (code !== undefined) {
    assert.equal(env.error?.code, code, `${what}: ${r.stdout}`);
    // A refusal of the command itself: the status is the code's.
    if (exit !== 1) assert.equal(ERROR_TABLE[code as keyof typeof ERROR_TABLE].exit, exit, what);
  }
}

/** The leaf commands of the program as declared (cli/program.ts and the operator reads). */
function leaves(): string[] {
  const out: string[] = [];
  const walk = (c: commander.Command, path: string[]) => {
    const subs = c.commands.filter((s) => s.name() !== 'help');
    if (
      path.length > 0 &&
      (subs.length === 0 || (c as unknown as { _actionHandler: unknown })._actionHandler)
    )
      out.push(path.join(' '));
    for (const s of subs) walk(s, [...path, s.name()]);
  };
  walk(
    buildProgram(commander, async () => undefined),
    [],
  );
  return out;
}

test('every command of the program has cases here, with a daemon and without', () => {
  const all = leaves();
  assert.ok(
    all.includes('daemon status') && all.includes('task list') && all.includes('tools'),
    all.join(', '),
  );
  // The longest declared command each case's argv starts with.
  const commandOf = (argv: readonly string[]) =>
    all
      .filter((l) => `${argv.join(' ')} `.startsWith(`${l} `))
      .sort((a, b) => b.length - a.length)[0];
  for (const cases of [NO_DAEMON, WITH_DAEMON('x', 'y')]) {
    const covered = new Set(cases.map(([argv]) => commandOf(argv)));
    // With a daemon, `daemon stop` runs last on its own; serve is a stdio session (its refusal is above).
    const missing = all.filter(
      (l) => !covered.has(l) && (cases === NO_DAEMON || (l !== 'daemon stop' && l !== 'serve')),
    );
    assert.deepEqual(missing, []);
  }
});

test('without a daemon: every refusal is one error envelope on stdout with its exit status', async (t) => {
  const { env } = tempHome(t);
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!/^agentteam_(exec|mcp)_/i.test(k)) clean[k] = v;
  const results = await pool(
    NO_DAEMON.map((c) => () => cliEnv([...c[0]], clean)),
    3,
  );
  NO_DAEMON.forEach((c, i) => {
    check(c, results[i]!);
  });
});

test("with a daemon: successes, the daemon's refusals and the command line's, then daemon stop", async (t) => {
  const { env, track } = tempHome(t);
  await startDaemonCli(env, track);
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-copy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A definition the daemon refuses (no upstream, no actions).
  writeFileSync(join(dir, 'ext.json'), '{"name":"broken"}');
  const cases = WITH_DAEMON(join(dir, 'copy.db'), join(dir, 'ext.json'));
  const results = await pool(
    cases.map((c) => () => cliEnv([...c[0]], env)),
    3,
  );
  cases.forEach((c, i) => {
    check(c, results[i]!);
  });
  check([['daemon', 'stop'], 0, 'envelope'], await cliEnv(['daemon', 'stop'], env));
});
