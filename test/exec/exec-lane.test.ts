import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../../daemon/server.js';
import { openLease } from '../../devkit/lease.js';
import { execLane } from '../../daemon/exec/lane.js';

/**
 * The Exec lane answers `POST {exec base}/{domain}/{action}` in its canonical
 * spelling without hono; a query string sends the same call through hono's
 * route. Every case below is sent both ways and must get the same status,
 * body and connection handling: the lane is a shortcut, not a second set of
 * rules.
 */

interface Got {
  status: number;
  body: string;
  type: string | undefined;
  connection: string | undefined;
}

/**
 * One request on a keep-alive connection of its own, so the answer says
 * whether the server keeps it; header values given as arrays are sent as
 * repeated fields.
 */
function send(
  url: string,
  headers: Record<string, string | string[]>,
  body: string,
  method = 'POST',
): Promise<Got> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<Got>((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          type: res.headers['content-type'],
          connection: res.headers.connection,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  }).finally(() => agent.destroy());
}

test('the Exec lane and the hono route answer every case alike', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-lane-'));
  const daemon = await startDaemon({ home, log: () => undefined });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const lease = await openLease({ home, url: daemon.url }, { serverId: 's1', agentId: 'a1' });
  t.after(() => lease.close());
  const base = `${daemon.url}/api/internal/exec/servers/s1/agents/a1`;
  const auth = { authorization: `Bearer ${lease.token()}`, 'content-type': 'application/json' };
  const created = await send(`${base}/task/create`, auth, JSON.stringify({ title: 'lane' }));
  assert.equal(created.status, 200, created.body);
  const id = (JSON.parse(created.body) as { data: { task: { id: string } } }).data.task.id;
  const get = JSON.stringify({ id });
  const port = new URL(daemon.url).port;

  const cases: Array<{
    name: string;
    path?: string;
    headers: Record<string, string | string[]>;
    body?: string;
    status: number;
    code?: string;
  }> = [
    { name: 'a read', headers: auth, status: 200 },
    {
      name: 'header names in any case',
      headers: { Authorization: auth.authorization, 'CONTENT-TYPE': 'application/json' },
      status: 200,
    },
    {
      name: 'no credential',
      headers: { 'content-type': 'application/json' },
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'the credential twice',
      headers: { ...auth, authorization: [auth.authorization, auth.authorization] },
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'another agent in the path',
      path: '/api/internal/exec/servers/s1/agents/a2/task/get',
      headers: auth,
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'an action that does not exist',
      path: '/api/internal/exec/servers/s1/agents/a1/task/explode',
      headers: auth,
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a foreign Host',
      headers: { ...auth, host: `evil.example:${port}` },
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'a foreign Origin',
      headers: { ...auth, origin: 'https://evil.example' },
      status: 403,
      code: 'forbidden',
    },
    { name: 'bad JSON', headers: auth, body: '{"id":', status: 400, code: 'invalid_json' },
    {
      name: 'a duplicate key',
      headers: auth,
      body: `{"id":"${id}","id":"${id}"}`,
      status: 400,
      code: 'invalid_json',
    },
    {
      name: 'input outside the schema',
      headers: auth,
      body: '{"id":5}',
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'a selector on a read',
      headers: { ...auth, 'Idempotency-Key': 'k1' },
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'a selector header twice',
      path: '/api/internal/exec/servers/s1/agents/a1/task/create',
      headers: { ...auth, 'idempotency-key': ['k1', 'k1'] },
      body: '{"title":"x"}',
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'a body over the limit',
      headers: auth,
      body: `{"id":"${'x'.repeat(1024 * 1024)}"}`,
      status: 413,
      code: 'body_too_large',
    },
  ];
  const before = daemon.gatedResponses();
  for (const c of cases) {
    const url = `${daemon.url}${c.path ?? '/api/internal/exec/servers/s1/agents/a1/task/get'}`;
    const body = c.body ?? get;
    const lane = await send(url, c.headers, body);
    const hono = await send(`${url}?via=hono`, c.headers, body);
    assert.equal(lane.status, c.status, `${c.name}: ${lane.body.slice(0, 200)}`);
    if (c.code)
      assert.equal(
        (JSON.parse(lane.body) as { error: { code: string } }).error.code,
        c.code,
        c.name,
      );
    assert.deepEqual(
      { ...lane, body: lane.body.slice(0, 2000) },
      { ...hono, body: hono.body.slice(0, 2000) },
      `${c.name}: the lane and the route differ`,
    );
  }
  // Every answer of both ways left through the result gate.
  assert.ok(daemon.gatedResponses() - before >= cases.length * 2);

  // A commit by another connection (as by another process) is seen by the next call, on both ways.
  const Database = createRequire(import.meta.url)(
    'better-sqlite3',
  ) as typeof import('better-sqlite3');
  const other = new Database(join(home, 'store.db'));
  t.after(() => other.close());
  for (const [n, suffix] of [
    [1, ''],
    [2, '?via=hono'],
  ] as const) {
    other.prepare('UPDATE tasks SET title = ? WHERE id = ?').run(`from elsewhere ${n}`, id);
    const seen = await send(`${base}/task/get${suffix}`, auth, get);
    assert.equal(
      (JSON.parse(seen.body) as { data: { task: { title: string } } }).data.task.title,
      `from elsewhere ${n}`,
    );
  }

  // Methods other than POST never take the lane; the route's answer stands.
  const got = await send(`${base}/task/get`, auth, '', 'GET');
  assert.equal(got.status, 405);
});

test('the lane takes only the canonical spelling of an action call; anything else goes to hono', async () => {
  const sent: number[] = [];
  const lane = execLane({
    exec: { gate: { sent: () => undefined } } as never,
    guard: () => 'refused here',
    admission: () => {
      throw new Error('not reached');
    },
    release: () => undefined,
    diag: () => undefined,
  });
  const takes = (method: string, url: string, host = '127.0.0.1:4100') =>
    lane(
      { method, url, rawHeaders: ['Host', host], complete: true } as never,
      { writeHead: (s: number) => sent.push(s), end: () => undefined } as never,
    );
  const at = '/api/internal/exec/servers/s1/agents/a1';
  assert.equal(takes('POST', `${at}/task/get`), true);
  assert.equal(takes('POST', `${at}/task.x/get_2`), true);
  for (const [method, url, host] of [
    ['GET', `${at}/task/get`],
    ['PUT', `${at}/task/get`],
    ['POST', `${at}/task/get?x=1`],
    ['POST', `${at}/task/get/`],
    ['POST', `${at}/task%2Fget/x`],
    ['POST', `${at}/.task/get`],
    ['POST', `${at}//get`],
    ['POST', `${at}/catalog`],
    ['POST', `${at}/native-approval`],
    ['POST', '/api/internal/exec/servers/s1/agents/../a1/task/get'],
    ['POST', `${at}/task/get`, 'LOCALHOST:4100'],
    ['POST', `${at}/task/get`, 'xn--bcher-kva.example:4100'.toUpperCase()],
  ] as const)
    assert.equal(takes(method, url, host), false, `${method} ${url} ${host ?? ''}`);
  await new Promise((r) => setImmediate(r));
  // The two it took were answered (by the guard's refusal here).
  assert.deepEqual(sent, [403, 403]);
});
