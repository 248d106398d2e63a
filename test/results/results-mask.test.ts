import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { openLease } from '../../devkit/lease.js';
import { rpc, post } from '../../devkit/http.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * Secrets are masked by value on every way out: planted in a task description, a
 * message, an error message, the runtime's own token and the operator token,
 * through Exec, MCP and the operator routes. None of the values looks like a
 * key; they are caught because they are the configured values.
 */
const HORSE = 'correct-horse-battery';
const TASKISH = 'task_Zq81NotAKey55';
const HEADER = 'hv-9d2c1e7fa0';
const APIKEY = 'sk-plain-looking-value';
const SHORT = 'tiny7ch';

async function setUp(t: import('node:test').TestContext) {
  const h = await prepareHome(t, {
    env: {
      SERVICE_TOKEN: HORSE,
      DEPLOY_PASSWORD: TASKISH,
      SHORT_SECRET: SHORT,
      VENDOR_CREDS_FOR_AGENT: APIKEY,
    },
    profile: {
      agents: [
        {
          id: 'a1',
          runtime: 'claude',
          headers: { 'X-Tenant-Auth': HEADER },
          apiKeyEnv: 'VENDOR_CREDS_FOR_AGENT',
        },
      ],
    },
  });
  const lease = await openLease(h as never, { serverId: 's1', agentId: 'a1' });
  t.after(() => lease.close());
  const base = (lease.data as unknown as { execBaseUrl: string }).execBaseUrl;
  return { h, lease, base };
}

function assertClean(text: string, secrets: readonly string[]): void {
  for (const s of secrets) assert.ok(!text.includes(s), `leaked ${s}: ${text.slice(0, 400)}`);
}

test('Exec results, Exec errors, MCP results and operator data never carry a configured secret', async (t) => {
  const { h, lease, base } = await setUp(t);
  const token = lease.token();
  const opToken = h.operatorToken();
  const all = [HORSE, TASKISH, HEADER, APIKEY, token, opToken];
  const title = `deploy with ${HORSE} and ${HEADER}, key ${APIKEY}, token ${token}, op ${opToken}, short ${SHORT}`;

  const created = await post(
    `${base}/task/create`,
    token,
    JSON.stringify({ title: 'deploy', description: title }),
  );
  assert.equal(created.status, 200, created.text);
  assertClean(created.text, all);
  const data = created.json.data.task;
  assert.match(data.description, /\[SERVICE_TOKEN\]/);
  assert.match(data.description, /\[X-Tenant-Auth\]/);
  assert.match(data.description, /\[VENDOR_CREDS_FOR_AGENT\]/);
  assert.match(data.description, /\[AGENTTEAM_EXEC_TOKEN\]/);
  assert.match(data.description, /\[AGENTTEAM_OPERATOR_TOKEN\]/);
  // Values shorter than 8 bytes are not masked.
  assert.match(data.description, /short tiny7ch/);

  const got = await post(`${base}/task/get`, token, JSON.stringify({ id: data.id }));
  assert.equal(got.status, 200);
  assertClean(got.text, all);

  // An error message that quotes the caller's input.
  const missing = await post(`${base}/task/get`, token, JSON.stringify({ id: TASKISH }));
  assert.equal(missing.status, 404, missing.text);
  assertClean(missing.text, all);
  assert.match(missing.json.error.message, /\[DEPLOY_PASSWORD\]/);

  // MCP: a message and its history; an unknown tool named by a secret (JSON-RPC error text).
  const sent = await rpc(lease.mcpUrl, token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'message_send', arguments: { target: 'channel:ops', content: title } },
  });
  assert.equal(sent.status, 200);
  assertClean(sent.body, all);
  const hist = await rpc(lease.mcpUrl, token, {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'message_history_read', arguments: { target: 'channel:ops' } },
  });
  assertClean(hist.body, all);
  assert.match(hist.body, /\[SERVICE_TOKEN\]/);
  const unknown = await rpc(lease.mcpUrl, token, {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: HORSE, arguments: {} },
  });
  assertClean(unknown.body, all);
  assert.match(unknown.body, /\[SERVICE_TOKEN\]/);

  // Operator routes that return data.
  const posted = await h.op('POST', '/api/v1/messages', {
    serverId: 's1',
    target: 'channel:ops',
    author: 'human:ann',
    content: `again ${HORSE}`,
  });
  assert.equal(posted.status, 201, posted.body);
  assertClean(posted.body, all);
  const read = await h.op('GET', '/api/v1/messages?serverId=s1&target=channel:ops');
  assert.equal(read.status, 200);
  assertClean(read.body, all);
  assert.match(read.body, /again \[SERVICE_TOKEN\]/);
});

test('a rotated token is masked as well as the previous generation', async (t) => {
  const { h, lease, base } = await setUp(t);
  const first = lease.token();
  const rot = await h.op('POST', `/api/v1/runtimes/${lease.data.authorizationId}/rotate`);
  assert.equal(rot.status, 200, rot.body);
  const second = lease.token();
  assert.notEqual(first, second);
  const res = await rpc(lease.mcpUrl, second, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'message_send',
      arguments: { target: 'channel:ops', content: `${first} / ${second}` },
    },
  });
  assert.equal(res.status, 200, res.body);
  assert.equal(
    JSON.parse(res.body).result.structuredContent.message.content,
    '[AGENTTEAM_EXEC_TOKEN] / [AGENTTEAM_EXEC_TOKEN]',
  );
  void base;
});
