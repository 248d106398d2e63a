import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Hono } from 'hono';
import { OPERATOR_API } from '../../catalog/operator/table.js';
import { registerOperatorApi, type OperatorHandlers } from '../../daemon/http/operator-dispatch.js';
import { systemClock } from '../../lib/clock.js';
import { OPERATOR_PATHS } from '../../lib/operator-paths.js';
import { type OperatorCallOutput, operatorRequest } from '../../lib/operator-client.js';
import { ROOT } from '../../devkit/cli.js';

/**
 * The operator API is one table (catalog/operator/) with one dispatcher
 * (daemon/http/operator-dispatch.ts) and one typed client (lib/operator-client.ts).
 */

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

test('no route is registered under /api/v1 outside the dispatcher', () => {
  // A registration is `.get(`, `.post(`, `.put(`, `.delete(`, `.on(` or `.all(` whose path starts /api/v1.
  const REGISTRATION =
    /\.(get|post|put|delete|patch|on|all)\(\s*(?:\[[^\]]*\]\s*,\s*)?['"`]\/api\/v1/;
  const found = sources('daemon').filter((f) => REGISTRATION.test(text(f)));
  assert.deepEqual(found, []);
  // The dispatcher registers every row from the table, by the row's method and path.
  assert.match(text('daemon/http/operator-dispatch.ts'), /app\.on\(row\.method, row\.path,/);
});

test('every row has one name and one method+path; the generated index and OpenAPI follow the table', () => {
  const names = OPERATOR_API.map((r) => r.name);
  assert.equal(new Set(names).size, names.length);
  const routes = OPERATOR_API.map((r) => `${r.method} ${r.path}`);
  assert.equal(new Set(routes).size, routes.length);
  assert.deepEqual(
    Object.entries(OPERATOR_PATHS).map(([n, p]) => `${n} ${p.method} ${p.path}`),
    OPERATOR_API.map((r) => `${r.name} ${r.method} ${r.path}`),
  );
  const doc = JSON.parse(text('specs/operator-openapi.json')) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const ops = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
  assert.deepEqual(ops.sort(), [...names].sort());
});

test('a row without a handler, or a handler without a row, stops the start', () => {
  const all = Object.fromEntries(OPERATOR_API.map((r) => [r.name, () => ({})])) as never;
  registerOperatorApi(new Hono(), all, systemClock);
  const { 'daemon.status': _, ...missing } = all as Record<string, unknown>;
  assert.throws(
    () => registerOperatorApi(new Hono(), missing as never as OperatorHandlers, systemClock),
    /operator route daemon.status has no handler/,
  );
  assert.throws(
    () =>
      registerOperatorApi(
        new Hono(),
        { ...(all as object), 'daemon.nothing': () => ({}) } as never,
        systemClock,
      ),
    /operator handler daemon.nothing has no row/,
  );
});

test('the dispatcher refuses input that fails the row schema with the row code, before the handler', async () => {
  let called = 0;
  const handlers = Object.fromEntries(
    OPERATOR_API.map((r) => [
      r.name,
      () => {
        called++;
        return { entries: [] };
      },
    ]),
  ) as never;
  const app = new Hono();
  app.onError((err, c) =>
    c.json({ ok: false, error: { code: (err as { code?: string }).code } }, 400),
  );
  registerOperatorApi(app, handlers, systemClock);
  const logs = await app.request('/api/v1/logs?limit=1001');
  assert.deepEqual(await logs.json(), { ok: false, error: { code: 'invalid_request' } });
  const decide = await app.request('/api/v1/approvals/appr_abcdefgh/decide', {
    method: 'POST',
    body: JSON.stringify({ decision: 'maybe' }),
    headers: { 'content-type': 'application/json' },
  });
  assert.deepEqual(await decide.json(), { ok: false, error: { code: 'validation_failed' } });
  assert.equal(called, 0);
  const ok = await app.request('/api/v1/logs?limit=10');
  assert.deepEqual(await ok.json(), { ok: true, data: { entries: [] } });
  assert.equal(called, 1);
});

test('the CLI, the console and the dev kit call the operator API through the one client', () => {
  const callers = [
    ...sources('cli').filter((f) => !f.startsWith('cli/exec/')),
    ...sources('daemon/console'),
    ...sources('devkit'),
  ];
  // No literal /api/v1 path in code outside the client: paths come from the table (comments may name routes).
  const literal = /['"`]\/api\/v1\//;
  const code = (f: string) =>
    text(f)
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
  assert.deepEqual(
    callers.filter((f) => literal.test(code(f))),
    [],
  );
  const client = /lib\/operator-client\.js'/;
  for (const f of [
    'cli/daemon-client.ts',
    'cli/daemon-link.ts',
    'daemon/console/operator-client.ts',
    'devkit/operator.ts',
  ])
    assert.match(
      text(f),
      client,
      `${relative(ROOT, join(ROOT, f))} builds on lib/operator-client.ts`,
    );
});

test('the operator event stream has one reader, the client’s (lib/event-stream.ts)', () => {
  const readsSse = /startsWith\(\s*['"`]data:/;
  assert.deepEqual(
    [...sources('cli'), ...sources('daemon/console'), ...sources('lib')].filter(
      (f) => f !== 'lib/event-stream.ts' && readsSse.test(text(f)),
    ),
    [],
  );
  // The CLI's held streams (serve --stdio, daemon logs --follow) open it through the client.
  assert.match(text('cli/daemon-link.ts'), /\.events\('events\.open'/);
  assert.match(text('lib/operator-client.ts'), /from '\.\/event-stream\.js'/);
});

test('the client fills a row’s path and query and is typed by the row', () => {
  assert.deepEqual(
    operatorRequest('approvals.decide', {
      params: { id: 'appr_abc/def' },
      body: { decision: 'approve' },
    }),
    {
      method: 'POST',
      path: '/api/v1/approvals/appr_abc%2Fdef/decide',
      body: '{"decision":"approve"}',
    },
  );
  assert.deepEqual(operatorRequest('audit.summary', { query: { since: '1h', agent: undefined } }), {
    method: 'GET',
    path: '/api/v1/audit/summary?since=1h',
  });
  // Checked by the build's type check (tsc): a caller that does not follow a row's schema does not compile.
  const wrongField = () =>
    // @ts-expect-error the decide row's body has no `verdict`, and `decision` is required
    operatorRequest('approvals.decide', { params: { id: 'appr_x' }, body: { verdict: 'yes' } });
  const wrongValue = () =>
    // @ts-expect-error `decision` is approve or reject
    operatorRequest('approvals.decide', { params: { id: 'appr_x' }, body: { decision: 'maybe' } });
  const noParams = () =>
    // @ts-expect-error the revoke row needs its :id
    operatorRequest('runtimes.revoke', {});
  assert.equal(typeof wrongField + typeof wrongValue + typeof noParams, 'functionfunctionfunction');
});

test('an operator read is typed by its catalog action: the body is its input, the answer its output', () => {
  assert.deepEqual(
    operatorRequest('reads.task.list', {
      params: { serverId: 'local' },
      body: { status: 'todo', limit: 5 },
    }),
    {
      method: 'POST',
      path: '/api/v1/servers/local/reads/task/list',
      body: '{"status":"todo","limit":5}',
    },
  );
  // Checked by tsc: a read caller that does not follow the action's schemas does not compile.
  const local = { serverId: 'local' };
  const wrongStatus = () =>
    // @ts-expect-error a task's status is one of the catalog's enum
    operatorRequest('reads.task.list', { params: local, body: { status: 'later' } });
  const noId = () =>
    // @ts-expect-error task get requires its id
    operatorRequest('reads.task.get', { params: { serverId: 'local' }, body: {} });
  const title = (out: OperatorCallOutput<'reads.task.get'>): string => out.task.title;
  // @ts-expect-error a task list answer has `tasks`, not `items`
  const items = (out: OperatorCallOutput<'reads.task.list'>) => out.items;
  assert.equal(
    typeof wrongStatus + typeof noId + typeof title + typeof items,
    'functionfunctionfunctionfunction',
  );
});
