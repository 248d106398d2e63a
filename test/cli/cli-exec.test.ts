import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { postJson } from '../../cli/exec/request.js';
import { cleanEnv, runCli } from '../../devkit/cli.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A listening HTTP endpoint that records what the CLI sends and answers with
 * a fixed envelope. It checks the client side of the wire (how many requests,
 * to where, with what); the real daemon's answers are tested end to end in
 * test/exec/exec-e2e.test.ts.
 */
async function recorder(
  t: TestContext,
  status = 200,
  reply = '{"ok":true,"data":{"task":{"id":"task_0000001"}}}',
) {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(status, { 'content-type': 'application/json' }).end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { requests, base: `http://127.0.0.1:${port}/api/internal/exec/servers/s1/agents/a1` };
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-h1-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function tokenFile(t: TestContext, content: string): string {
  const file = join(tempDir(t), 'token');
  writeFileSync(file, content, { mode: 0o600 });
  return file;
}

const parse = (stdout: string) =>
  JSON.parse(stdout) as { ok: boolean; error: { code: string; details?: { path: string }[] } };

test('local validation failure: validation_failed envelope on stdout with the JSON pointer of each bad field, exit 2', async () => {
  const r = await runCli([
    'exec',
    'task',
    'create',
    '{"title":"","status":"later","projectId":7,"colour":"red"}',
  ]);
  assert.equal(r.code, 2);
  const env = parse(r.stdout);
  assert.equal(env.ok, false);
  assert.equal(env.error.code, 'validation_failed');
  const paths = (env.error.details ?? []).map((d) => d.path).sort();
  assert.deepEqual(paths, ['/colour', '/projectId', '/status', '/title']);
});

test('a missing required field is reported at its own path; a non-object at the root path', async () => {
  const [missing, root, omitted] = await Promise.all([
    runCli(['exec', 'review', 'add', '{"taskId":"task_01J9Z3K8Q2"}']),
    runCli(['exec', 'task', 'get', '[1,2]']),
    runCli(['exec', 'task', 'get']),
  ]);
  assert.equal(missing.code, 2);
  assert.deepEqual(
    parse(missing.stdout)
      .error.details?.map((d) => d.path)
      .sort(),
    ['/body', '/verdict'],
  );
  assert.equal(root.code, 2);
  assert.deepEqual(
    parse(root.stdout).error.details?.map((d) => d.path),
    [''],
  );
  assert.equal(omitted.code, 2);
  assert.deepEqual(
    parse(omitted.stdout).error.details?.map((d) => d.path),
    ['/id'],
  );
});

test('stdin input (-) is validated the same way', async () => {
  const r = await runCli(['exec', 'task', 'list', '-'], { stdin: '{"limit":101}\n' });
  assert.equal(r.code, 2);
  assert.deepEqual(
    parse(r.stdout).error.details?.map((d) => d.path),
    ['/limit'],
  );
});

test('malformed or empty JSON is invalid_json, exit 2', async () => {
  const [inline, stdin, empty] = await Promise.all([
    runCli(['exec', 'task', 'create', '{"title":']),
    runCli(['exec', 'task', 'create', '-'], { stdin: '{"title":"x"} trailing' }),
    runCli(['exec', 'task', 'create', '-'], { stdin: '  \n' }),
  ]);
  for (const r of [inline, stdin, empty]) {
    assert.equal(r.code, 2);
    assert.equal(parse(r.stdout).error.code, 'invalid_json');
  }
});

test('valid input without credentials exits 3 with a clear message and sends nothing', async (t) => {
  const { requests, base } = await recorder(t);
  const missingFile = join(tempDir(t), 'gone');
  const unreadable = tokenFile(t, 'tok');
  chmodSync(unreadable, 0o000);
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{}, /no daemon credentials: AGENTTEAM_EXEC_BASE_URL is not set/],
    [{ AGENTTEAM_EXEC_BASE_URL: base }, /AGENTTEAM_EXEC_TOKEN_FILE is not set/],
    // A raw token in the environment is never a fallback.
    [
      { AGENTTEAM_EXEC_BASE_URL: base, AGENTTEAM_EXEC_TOKEN: 'raw-token' },
      /AGENTTEAM_EXEC_TOKEN_FILE is not set/,
    ],
    [{ AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, 'tok') }, /AGENTTEAM_EXEC_BASE_URL is not set/],
    [
      { AGENTTEAM_EXEC_BASE_URL: base, AGENTTEAM_EXEC_TOKEN_FILE: missingFile },
      /token file .*gone does not exist/,
    ],
    [
      { AGENTTEAM_EXEC_BASE_URL: base, AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, '') },
      /token file .* is empty/,
    ],
    [
      { AGENTTEAM_EXEC_BASE_URL: base, AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, ' \n') },
      /token file .* is empty/,
    ],
    [
      { AGENTTEAM_EXEC_BASE_URL: base, AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, 'two\nlines') },
      /does not hold a token/,
    ],
    [
      { AGENTTEAM_EXEC_BASE_URL: 'not a url', AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, 'tok') },
      /not a URL/,
    ],
  ];
  // Root reads any file, so only check the unreadable case where permissions apply.
  if (process.getuid?.() !== 0)
    cases.push([
      { AGENTTEAM_EXEC_BASE_URL: base, AGENTTEAM_EXEC_TOKEN_FILE: unreadable },
      /cannot be read/,
    ]);
  for (const [extra, message] of cases) {
    const r = await runCli(['exec', 'task', 'create', '{"title":"x"}'], { env: cleanEnv(extra) });
    assert.equal(r.code, 3, JSON.stringify(extra));
    assert.match(r.stderr, message);
    // Like every refusal, the envelope on stdout too.
    assert.equal(JSON.parse(r.stdout).error.code, 'unavailable');
    assert.match(JSON.parse(r.stdout).error.message, message);
  }
  assert.equal(requests.length, 0);
});

test('with credentials: exactly one POST to {base}/{domain}/{action} with the bearer token and the input as written', async (t) => {
  const { requests, base } = await recorder(t);
  const input = '{"title":"Ship it",  "assignee":"a1"}';
  const r = await runCli(['exec', 'task', 'create', input], {
    env: cleanEnv({
      AGENTTEAM_EXEC_BASE_URL: `${base}/`,
      AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, 'header.payload.sig\n'),
    }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '{"ok":true,"data":{"task":{"id":"task_0000001"}}}\n');
  assert.equal(requests.length, 1);
  const [req] = requests;
  assert.equal(req?.method, 'POST');
  assert.equal(req?.url, '/api/internal/exec/servers/s1/agents/a1/task/create');
  assert.equal(req?.headers.authorization, 'Bearer header.payload.sig');
  assert.equal(req?.headers['content-type'], 'application/json');
  assert.equal(req?.body, input);
});

test('an omitted input is sent as {} for actions that accept it', async (t) => {
  const { requests, base } = await recorder(
    t,
    200,
    '{"ok":true,"data":{"tasks":[],"hasMore":false}}',
  );
  const r = await runCli(['exec', 'task', 'list'], {
    env: cleanEnv({
      AGENTTEAM_EXEC_BASE_URL: base,
      AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, 'tok'),
    }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(requests[0]?.body, '{}');
});

test('a daemon error envelope is printed as is; the exit status comes from the error table', async (t) => {
  const cases: [number, string, number][] = [
    [404, '{"ok":false,"error":{"code":"not_found","message":"no such task"}}', 1],
    [403, '{"ok":false,"error":{"code":"forbidden","message":"forbidden"}}', 1],
    [
      400,
      '{"ok":false,"error":{"code":"validation_failed","message":"bad cursor","details":[{"path":"/cursor","message":"x"}]}}',
      2,
    ],
    [503, '{"ok":false,"error":{"code":"unavailable","message":"shutting down"}}', 3],
  ];
  for (const [status, body, exit] of cases) {
    const { base } = await recorder(t, status, body);
    const r = await runCli(['exec', 'task', 'get', '{"id":"task_01J9Z3K8Q2"}'], {
      env: cleanEnv({
        AGENTTEAM_EXEC_BASE_URL: base,
        AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, 'tok'),
      }),
    });
    assert.equal(r.code, exit, body);
    assert.equal(r.stdout, `${body}\n`);
  }
});

test('an answer that is not an envelope exits 1 with a message and an upstream_error envelope', async (t) => {
  const { base } = await recorder(t, 404, '404 Not Found');
  const r = await runCli(['exec', 'task', 'get', '{"id":"task_01J9Z3K8Q2"}'], {
    env: cleanEnv({
      AGENTTEAM_EXEC_BASE_URL: base,
      AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, 'tok'),
    }),
  });
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).error.code, 'upstream_error');
  assert.match(r.stderr, /HTTP 404 without a JSON envelope/);
});

test('no daemon listening: exit 3 with "connection refused"', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const r = await runCli(['exec', 'task', 'list', '{}'], {
    env: cleanEnv({
      AGENTTEAM_EXEC_BASE_URL: `http://127.0.0.1:${port}/api/internal/exec/servers/s1/agents/a1`,
      AGENTTEAM_EXEC_TOKEN_FILE: tokenFile(t, 'tok'),
    }),
  });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /no daemon at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/);
});

test('a daemon that accepts but never answers times out instead of hanging', async (t) => {
  const sockets = new Set<Socket>();
  const server = createServer(() => {
    // Never answers.
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  const started = Date.now();
  const res = await postJson(`http://127.0.0.1:${port}/x/task/get`, 'tok', '{}', 200);
  assert.equal(res.ok, false);
  assert.equal(!res.ok && res.error.code, 'ETIMEDOUT');
  assert.ok(Date.now() - started < 5000);
});
