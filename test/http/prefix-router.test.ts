import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { PatternRouter } from 'hono/router/pattern-router';
import { PrefixRouter } from '../../daemon/http/prefix-router.js';
import {
  EXEC_ACTION_PATH,
  EXEC_CATALOG_PATH,
  MCP_PATHS,
  OPERATOR_SCOPE,
  RUNTIME_AUTH_PATHS,
  RUNTIME_PREFIXES,
} from '../../daemon/http/paths.js';
import { OPERATOR_API } from '../../catalog/operator/table.js';

/**
 * The app's router must give every path the same routes, in the same order
 * and with the same parameters, as one PatternRouter over the whole table.
 * The table here is the app's own patterns in its order, plus patterns whose
 * parameter or wildcard comes before the end of a runtime prefix (they can
 * match under it and must be kept) and look-alikes that cannot.
 */
const ROUTES: [string, string][] = [
  ['ALL', '*'],
  ['ALL', OPERATOR_SCOPE],
  ...RUNTIME_AUTH_PATHS.map((p): [string, string] => ['ALL', p]),
  ['GET', EXEC_CATALOG_PATH],
  ['POST', EXEC_ACTION_PATH],
  ['GET', EXEC_ACTION_PATH],
  ...MCP_PATHS.flatMap((p): [string, string][] => [
    ['POST', p],
    ['GET', p],
  ]),
  ...OPERATOR_API.map((r): [string, string] => [r.method, r.path]),
  ['GET', '/console/*'],
  ['ALL', '/api/internal/:family/servers/:serverId/agents/:agentId/*'],
  ['POST', '/api/*/exec/servers/:serverId/agents/:agentId/:domain/:action'],
  ['POST', '/mcp/:name/:serverId/:agentId'],
  ['POST', '/api/internal/exec/server/:serverId/agents/:agentId/:domain/:action'],
  ['POST', '/api/internal/exec/servers/:serverId/agents/:agentId/task/:action?'],
  ['POST', '/mcp/agentteamx/:serverId/:agentId'],
];

const PATHS = [
  '/api/internal/exec/servers/local/agents/a1/task/get',
  '/api/internal/exec/servers/local/agents/a1/task/get/',
  '/api/internal/exec/servers/local/agents/a1/task',
  '/api/internal/exec/servers/local/agents/a1/catalog',
  '/api/internal/exec/servers/local/agents/a1/a/b/c',
  '/api/internal/exec/servers/',
  '/api/internal/exec/servers',
  '/api/internal/mcp/servers/local/agents/a1',
  '/api/internal/mcp/servers/local/agents/a1/x',
  '/mcp/agentteam/local/a1',
  '/mcp/agentteamx/local/a1',
  '/mcp/other/local/a1',
  '/api/v1/status',
  '/api/v1/tasks',
  '/console/',
  '/nowhere',
];

function routers(): [PatternRouter<string>, PrefixRouter<string>] {
  const whole = new PatternRouter<string>();
  const split = new PrefixRouter<string>(RUNTIME_PREFIXES);
  ROUTES.forEach(([method, path], i) => {
    const handler = `${i} ${method} ${path}`;
    whole.add(method, path, handler);
    split.add(method, path, handler);
  });
  return [whole, split];
}

test('the prefix router answers every method and path as one PatternRouter over the whole table', () => {
  const [whole, split] = routers();
  let matched = 0;
  for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'])
    for (const path of PATHS) {
      const want = whole.match(method, path);
      assert.deepEqual(split.match(method, path), want, `${method} ${path}`);
      matched += want[0].length;
    }
  // The table is not vacuous: the runtime paths do match routes, including the look-alikes kept.
  assert.ok(matched > 100, `only ${matched} matches`);
  const exec = split.match('POST', PATHS[0]!)[0].map(([h]) => h);
  assert.ok(exec.some((h) => h.includes(':family')));
  assert.ok(exec.some((h) => h.includes('/api/*/exec')));
  assert.ok(!exec.some((h) => h.includes('/api/v1')));
});

test('each runtime prefix is the literal start of its family: the Exec base and both MCP paths', () => {
  assert.deepEqual(RUNTIME_PREFIXES, [
    '/api/internal/exec/servers/',
    '/api/internal/mcp/servers/',
    '/mcp/agentteam/',
  ]);
});
