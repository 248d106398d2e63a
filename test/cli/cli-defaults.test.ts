import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { BIN, cli, firstLine, startDaemon } from '../../devkit/daemon.js';
import { closeHttp } from '../../devkit/http.js';
import { runCli } from '../../devkit/cli.js';
import { detailsOf, ENUM_VALUES_SHOWN } from '../../lib/input-validators.js';

test.after(() => closeHttp());

// Prints its environment as one JSON line, then idles until killed.
const CHILD = 'process.stdout.write(JSON.stringify(process.env)+"\\n");setInterval(()=>{},1e6)';

test('one default server: what an operator posts without --server, an agent started without --server reads', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const proc = spawn(
    process.execPath,
    [BIN, 'run', '--agent', 'a1', '--', process.execPath, '-e', CHILD],
    {
      env: { ...process.env, AGENTTEAM_HOME: d.home },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(async () => {
    // `run` passes SIGTERM on to its command and exits with it.
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (proc.exitCode === null) proc.kill('SIGKILL');
  });
  const env = JSON.parse(await firstLine(proc)) as Record<string, string>;
  assert.match(env.AGENTTEAM_EXEC_BASE_URL!, /\/servers\/local\/agents\/a1$/);
  const posted = await cli(d.home, [
    'message',
    'post',
    '--target',
    'channel:general',
    '--as',
    'human:ada',
    'Please summarise the release.',
  ]);
  assert.equal(posted.code, 0, posted.stderr);
  const client = new Client({ name: 'defaults-test', version: '1.0.0' });
  const token = readFileSync(env.AGENTTEAM_EXEC_TOKEN_FILE!, 'utf8').trim();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(env.AGENTTEAM_MCP_URL!), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.after(() => client.close());
  const read = await client.callTool({
    name: 'message_history_read',
    arguments: { target: 'channel:general' },
  });
  const messages = (read.structuredContent as { messages: { content: string; author: string }[] })
    .messages;
  assert.deepEqual(
    messages.map((m) => [m.author, m.content]),
    [['human:ada', 'Please summarise the release.']],
  );
  const history = JSON.parse(
    (await cli(d.home, ['message', 'history', '--target', 'channel:general'])).stdout,
  );
  assert.equal(history.data.messages.length, 1);
});

test('help names the one default server and marks required options', async () => {
  const [post, history, run, list] = await Promise.all([
    runCli(['message', 'post', '--help']),
    runCli(['message', 'history', '--help']),
    runCli(['run', '--help']),
    runCli(['task', 'list', '--help']),
  ]);
  for (const r of [post, history, list])
    assert.match(r.stdout, /--server <id>\s+server id \(default: local\)/);
  assert.match(run.stdout, /--server <id>\s+server id \(default: "local"\)/);
  assert.match(post.stdout, /--as <sender>\s+human:<handle> \(required\)/);
  assert.match(post.stdout, /--target <target>\s+exact target \(required\)/);
  assert.match(run.stdout, /--agent <id>\s+agent id \(required\)/);
  assert.doesNotMatch(post.stdout, /--server[^\n]*required/);
});

test('usage errors print the JSON error envelope on stdout with exit 2, as validation errors do', async () => {
  const cases = [
    ['message', 'post', '--target', 'channel:x', 'hi'],
    ['daemon', 'nosuch'],
    ['nosuch'],
    ['daemon'],
    ['run', '--agent', 'a1', '--ttl', '0', '--', 'true'],
    ['message', 'post', '--target', 'channel:x', '--as', 'ada', 'hi'],
  ];
  const results = await Promise.all(cases.map((c) => runCli(c)));
  for (const [i, r] of results.entries()) {
    assert.equal(r.code, 2, cases[i]!.join(' '));
    const env = JSON.parse(r.stdout);
    assert.equal(env.ok, false);
    assert.equal(env.error.code, 'usage', cases[i]!.join(' '));
    assert.ok(env.error.message.length > 0);
    assert.ok(r.stderr.length > 0, 'people still read the message on stderr');
  }
  assert.match(
    JSON.parse(results[0]!.stdout).error.message,
    /required option '--as <sender>' not specified/,
  );
  // Help and version are not errors.
  for (const args of [['--help'], ['--version'], ['daemon', '--help']]) {
    const r = await runCli(args);
    assert.equal(r.code, 0);
    assert.doesNotMatch(r.stdout, /"ok":false/);
  }
});

test('enum validation errors list the allowed values, at most twenty of them', async () => {
  const r = await runCli(['exec', 'task', 'list', '{"status":"later"}']);
  assert.equal(r.code, 2);
  const detail = JSON.parse(r.stdout).error.details[0];
  assert.deepEqual(detail, {
    path: '/status',
    message: 'must be one of "todo", "in_progress", "blocked", "done", "cancelled"',
  });
  const at = (n: number) =>
    detailsOf([
      {
        instancePath: '/x',
        keyword: 'enum',
        params: { allowedValues: Array.from({ length: n }, (_, i) => `v${i}`) },
      },
    ]).details[0]!.message;
  assert.equal(
    at(ENUM_VALUES_SHOWN),
    `must be one of ${Array.from({ length: 20 }, (_, i) => `"v${i}"`).join(', ')}`,
  );
  assert.equal(
    at(ENUM_VALUES_SHOWN + 1),
    `must be one of ${Array.from({ length: 20 }, (_, i) => `"v${i}"`).join(', ')} (and 1 more)`,
  );
  assert.doesNotMatch(at(500), /v20/);
});
