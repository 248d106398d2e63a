import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLease } from '../../devkit/lease.js';
import { rpc, rawRequest } from '../../devkit/http.js';
import { runtimeEnvLine } from '../../devkit/runtime-env.js';
import { installExample, startUpstream } from '../../devkit/extension-upstream.js';
import { SPAN_KIND } from '../../devkit/otlp-receiver.js';
import {
  callerContext,
  childrenOf,
  COLLECTOR_KEY,
  d,
  inTrace,
  receiver,
} from '../../devkit/otel.js';

/**
 * OpenTelemetry traces end to end (devkit/otel.ts starts the daemon and
 * the collector): span names and attributes follow the MCP semantic
 * conventions; incoming traceparents are continued (MCP, Exec, operator
 * routes); the trace reaches an extension upstream. The metrics those calls
 * leave are exported with the configured headers, which never reach a
 * runtime. (Client tools and the knowledge upstream: telemetry-propagation.)
 */

test('an MCP tools/call span follows the MCP conventions, continues params._meta.traceparent and has store and gate children', async () => {
  const lease = await openLease(d, { serverId: 's1', agentId: 'a1', sessionName: 'sess-1' });
  try {
    const caller = callerContext();
    const res = await rpc(
      lease.mcpUrl,
      lease.token(),
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'message_send',
          arguments: { target: 'channel:otel', content: 'hello' },
          _meta: { traceparent: caller.traceparent },
        },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    assert.equal(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).result.isError, false, res.body);

    const server = await receiver.waitFor(() =>
      inTrace(caller.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
    );
    assert.equal(server.name, 'tools/call message_send');
    assert.equal(server.parentSpanId, caller.spanId, 'the caller span is the parent');
    assert.equal(server.attributes['mcp.method.name'], 'tools/call');
    assert.equal(server.attributes['gen_ai.tool.name'], 'message_send');
    assert.equal(server.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(server.attributes['jsonrpc.request.id'], '7');
    assert.equal(server.attributes['mcp.protocol.version'], '2025-06-18');
    assert.equal(server.attributes['mcp.session.id'], lease.data.sessionId);
    assert.equal(server.attributes['network.transport'], 'tcp');
    assert.equal(server.attributes['error.type'], undefined);
    assert.equal(server.resource['service.name'], 'agentteam-otel-test');

    await receiver.waitFor(() => (childrenOf(server).length >= 2 ? true : undefined));
    const names = childrenOf(server)
      .map((s) => s.name)
      .sort();
    assert.ok(names.includes('store.tx'), names.join());
    assert.ok(names.includes('result_gate'), names.join());
    const tx = childrenOf(server).find((s) => s.name === 'store.tx')!;
    assert.equal(tx.attributes['db.system.name'], 'sqlite');

    // A tool error: the call succeeds at JSON-RPC level, error.type is tool_error.
    const bad = callerContext();
    const failed = await rpc(
      lease.mcpUrl,
      lease.token(),
      {
        jsonrpc: '2.0',
        id: 'r-2',
        method: 'tools/call',
        params: {
          name: 'message_history_read',
          arguments: { target: 'nowhere' },
          _meta: { traceparent: bad.traceparent },
        },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    assert.equal(JSON.parse(failed.body).result.isError, true, failed.body);
    const errSpan = await receiver.waitFor(() =>
      inTrace(bad.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
    );
    assert.equal(errSpan.name, 'tools/call message_history_read');
    assert.equal(errSpan.attributes['error.type'], 'tool_error');
    assert.equal(errSpan.attributes['jsonrpc.request.id'], 'r-2', 'a short string id is recorded');
    assert.equal(errSpan.status?.code, 2, 'span status ERROR');

    // tools/list without a tool has the method alone as its name; an unknown tool is never named.
    const plain = callerContext();
    await rpc(
      lease.mcpUrl,
      lease.token(),
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/list',
        params: { _meta: { traceparent: plain.traceparent } },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    const list = await receiver.waitFor(() =>
      inTrace(plain.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
    );
    assert.equal(list.name, 'tools/list');
    const unknown = callerContext();
    await rpc(
      lease.mcpUrl,
      lease.token(),
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: {
          name: 'no_such_tool',
          arguments: {},
          _meta: { traceparent: unknown.traceparent },
        },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    const unk = await receiver.waitFor(() =>
      inTrace(unknown.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
    );
    assert.equal(unk.name, 'tools/call');
    assert.equal(unk.attributes['gen_ai.tool.name'], undefined);
    assert.equal(unk.attributes['error.type'], '-32602');
    assert.equal(unk.attributes['rpc.response.status_code'], '-32602');
  } finally {
    lease.close();
  }
});

test('an Exec action continues the traceparent header and the trace id reaches the extension upstream', async (t) => {
  const up = await startUpstream();
  t.after(() => up.close());
  await installExample(d, up.url);
  const lease = await openLease(d, { serverId: 's1', agentId: 'a1' });
  t.after(() => lease.close());
  const exec = lease.mcpUrl.replace('/api/internal/mcp/', '/api/internal/exec/');
  const caller = callerContext();
  const res = await rawRequest(
    `${exec}/github/watch`,
    'POST',
    {
      authorization: `Bearer ${lease.token()}`,
      'content-type': 'application/json',
      traceparent: caller.traceparent,
    },
    JSON.stringify({ repo: 'acme/api', number: 5, target: 'channel:reviews' }),
  );
  assert.equal(res.status, 200, res.body);

  const server = await receiver.waitFor(() =>
    inTrace(caller.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
  );
  assert.equal(server.name, 'exec github/watch');
  assert.equal(server.parentSpanId, caller.spanId);
  assert.equal(server.attributes['agentteam.exec.domain'], 'github');
  assert.equal(server.attributes['agentteam.exec.action'], 'watch');
  const outbound = await receiver.waitFor(() =>
    childrenOf(server).find((s) => s.kind === SPAN_KIND.CLIENT),
  );
  assert.equal(outbound.name, 'POST github');

  const got = up.received.at(-1)!;
  const tp = String(got.headers.traceparent ?? '');
  assert.match(tp, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  const [, traceId, parentId] = tp.split('-');
  assert.equal(traceId, caller.traceId, 'the upstream joins the caller trace');
  assert.equal(parentId, outbound.spanId, "the upstream's parent is the daemon's outbound span");

  // An action outside the pinned catalog is recorded as _unknown, never by the name the caller chose.
  const stray = callerContext();
  await rawRequest(
    `${exec}/github/no_such_action`,
    'POST',
    {
      authorization: `Bearer ${lease.token()}`,
      'content-type': 'application/json',
      traceparent: stray.traceparent,
    },
    '{}',
  );
  const unknown = await receiver.waitFor(() =>
    inTrace(stray.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
  );
  assert.equal(unknown.name, 'exec _unknown/_unknown');
  assert.equal(unknown.attributes['error.type'], 'not_found');
});

test('an operator route continues the traceparent header', async () => {
  const caller = callerContext();
  const opToken = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const res = await rawRequest(new URL('/api/v1/status', d.url).toString(), 'GET', {
    authorization: `Bearer ${opToken}`,
    traceparent: caller.traceparent,
  });
  assert.equal(res.status, 200);
  const span = await receiver.waitFor(() =>
    inTrace(caller.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
  );
  assert.equal(span.name, 'GET /api/v1/status');
  assert.equal(span.parentSpanId, caller.spanId);
  assert.equal(span.attributes['http.route'], '/api/v1/status');
});

test('metrics are exported over OTLP with the configured headers, and the headers never reach a runtime', async (t) => {
  const duration = await receiver.waitFor(() =>
    receiver.metrics.find(
      (m) =>
        m.name === 'mcp.server.operation.duration' &&
        m.points.some((p) => p.attributes['gen_ai.tool.name'] === 'message_send'),
    ),
  );
  const point = duration.points.find((p) => p.attributes['gen_ai.tool.name'] === 'message_send')!;
  assert.equal(point.attributes['mcp.method.name'], 'tools/call');
  assert.ok(Number(point.raw.count) >= 1);
  await receiver.waitFor(() => receiver.metrics.find((m) => m.name === 'agentteam.calls'));
  assert.ok(
    receiver.headers.length > 0 &&
      receiver.headers.every((h) => h['x-collector-key'] === COLLECTOR_KEY),
    'every export carries the configured header',
  );

  // A runtime launched from the same shell does not inherit the collector credential.
  const env = JSON.parse(await runtimeEnvLine(t, { AGENTTEAM_HOME: d.home })) as Record<
    string,
    string
  >;
  assert.ok(env.AGENTTEAM_EXEC_BASE_URL, 'the runtime started');
  assert.equal(env.OTEL_EXPORTER_OTLP_HEADERS, undefined);
  assert.equal(
    env.OTEL_SERVICE_NAME,
    'agentteam-otel-test',
    'other OTEL_* variables are left alone',
  );
});
