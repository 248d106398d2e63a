import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { rpc, rawRequest } from '../../devkit/http.js';
import { connectApp, connectAgent, echoTool, waitUntil } from '../../devkit/client-tools.js';
import { SPAN_KIND } from '../../devkit/otlp-receiver.js';
import { callerContext, d, inTrace, receiver } from '../../devkit/otel.js';

/**
 * OpenTelemetry export (devkit/otel.ts starts the daemon and the
 * collector): no planted secret in any exported span or metric, and
 * http/protobuf when no protocol is set.
 */

test('secrets planted in arguments, ids, names, results and errors appear in no exported span or metric, nor in /metrics', async (t) => {
  const secret = (tag: string) => `${tag}${randomBytes(16).toString('hex')}`;
  const S = {
    arg: secret('sarg'),
    id: secret('sid-'),
    tool: secret('stool_'),
    action: secret('sact'),
    header: secret('shdr'),
    result: secret('sres'),
    error: secret('serr'),
    code: secret('s_code_'),
    prop: secret('sprop'),
  };
  const lease = await openLease(d, { serverId: 's1', agentId: 'a1' });
  t.after(() => lease.close());
  const token = lease.token();
  const mcp = (message: unknown, extra: Record<string, string> = {}) =>
    rpc(lease.mcpUrl, token, message, { 'mcp-protocol-version': '2025-06-18', ...extra });
  const traces: string[] = [];
  const ctx = () => {
    const c = callerContext();
    traces.push(c.traceId);
    return c.traceparent;
  };

  // Arguments, a long request id, an unknown tool name, an unknown property (echoed in the validation error).
  await mcp({
    jsonrpc: '2.0',
    id: S.id,
    method: 'tools/call',
    params: {
      name: 'message_send',
      arguments: { target: 'channel:s', content: S.arg },
      _meta: { traceparent: ctx() },
    },
  });
  await mcp({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: S.tool, arguments: { x: S.arg }, _meta: { traceparent: ctx() } },
  });
  const invalid = await mcp({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: {
      name: 'message_send',
      arguments: { target: 'channel:s', content: 'c', [S.prop]: 1 },
      _meta: { traceparent: ctx() },
    },
  });
  assert.ok(
    invalid.body.includes(S.prop),
    'the validation error names the property (so the test can fail)',
  );
  // A malformed traceparent carrying a secret, and an Exec action name outside the catalog.
  const exec = lease.mcpUrl.replace('/api/internal/mcp/', '/api/internal/exec/');
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await rawRequest(
    `${exec}/task/create`,
    'POST',
    { ...auth, traceparent: `00-${S.header}-01` },
    JSON.stringify({ title: S.arg }),
  );
  await rawRequest(`${exec}/task/${S.action}`, 'POST', { ...auth, traceparent: ctx() }, '{}');

  // A client tool whose app answers with a secret result, then with a secret error code and message.
  const app = await connectApp(d);
  t.after(() => app.close());
  const agent = await connectAgent(d, 'a3');
  t.after(() => agent.close());
  assert.equal((await app.register('vault', [echoTool('vault_read')])).status, 200);
  await waitUntil(async () =>
    (await agent.client.listTools()).tools.some((x) => x.name === 'vault_read'),
  );
  for (const answer of [
    { ok: true, content: [{ type: 'text', text: S.result }] },
    { ok: false, error: { code: S.code, message: S.error } },
  ]) {
    const pending = agent.client.callTool({
      name: 'vault_read',
      arguments: { text: S.arg },
      _meta: { traceparent: ctx() },
    });
    const req = await app.next<{ request_id: string }>(
      (f) =>
        f.type === 'client_tool.request' &&
        !app.frames.some((g) => g.type === 'answered' && g.data.id === f.data.request_id),
    );
    app.frames.push({ seq: -1, type: 'answered', data: { id: req.data.request_id } });
    await app.claim(req.data.request_id);
    assert.equal((await app.answer(req.data.request_id, answer)).status, 200);
    const out = await pending;
    assert.ok(
      JSON.stringify(out).includes(answer.ok ? S.result : S.error),
      'the agent did get the secret (so the test can fail)',
    );
  }

  for (const id of traces)
    await receiver.waitFor(() => inTrace(id).find((s) => s.kind === SPAN_KIND.SERVER));
  // One more metrics export after every call above.
  const exportsBefore = receiver.bodies.filter((b) => b.includes('resourceMetrics')).length;
  await receiver.waitFor(() =>
    receiver.bodies.filter((b) => b.includes('resourceMetrics')).length > exportsBefore + 1
      ? true
      : undefined,
  );
  const opToken = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const scraped = await rawRequest(new URL('/metrics', d.url).toString(), 'GET', {
    authorization: `Bearer ${opToken}`,
  });
  assert.equal(scraped.status, 200);
  assert.match(scraped.body, /vault_read/, 'the scrape covers the calls');

  const exported = receiver.bodies.join('\n');
  assert.ok(
    exported.includes('vault_read') && exported.includes('message_send'),
    'the exports cover the calls',
  );
  for (const [what, value] of Object.entries({ ...S, token, operator: opToken })) {
    assert.ok(!exported.includes(value), `the ${what} secret is in an OTLP export`);
    assert.ok(!scraped.body.includes(value), `the ${what} secret is in /metrics`);
  }
});

test('without OTEL_EXPORTER_OTLP_PROTOCOL the daemon exports http/protobuf, the specification default', async (t) => {
  const saved = process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  let other: Daemon;
  try {
    other = await startDaemon();
  } finally {
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = saved;
  }
  t.after(() => other.close());
  const lease = await openLease(other, { serverId: 's1', agentId: 'a1' });
  t.after(() => lease.close());
  const seen = receiver.headers.length;
  await rpc(
    lease.mcpUrl,
    lease.token(),
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    { 'mcp-protocol-version': '2025-06-18' },
  );
  await receiver.waitFor(() =>
    receiver.headers.slice(seen).some((h) => h['content-type'] === 'application/x-protobuf')
      ? true
      : undefined,
  );
});
