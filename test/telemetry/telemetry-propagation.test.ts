import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { kbTurn } from '../../devkit/knowledge.js';
import { rpc } from '../../devkit/http.js';
import { connectApp, connectAgent, echoTool, waitUntil } from '../../devkit/client-tools.js';
import { lookupTool, spawnServe } from '../../devkit/serve-stdio.js';
import { SPAN_KIND } from '../../devkit/otlp-receiver.js';
import { callerContext, childrenOf, d, inTrace, receiver } from '../../devkit/otel.js';

/**
 * The trace context goes out with the calls a daemon makes on an agent's
 * behalf (devkit/otel.ts starts the daemon and the collector): to
 * client-tool apps, over HTTP/SSE and over serve --stdio, in `_meta`, and to
 * the knowledge upstream in its headers, each naming the daemon's own span
 * as the parent.
 */

test('a client tool call carries the trace context in its _meta, over HTTP/SSE and over serve --stdio', async (t) => {
  const app = await connectApp(d);
  t.after(() => app.close());
  const agent = await connectAgent(d, 'a2');
  t.after(() => agent.close());
  const reg = await app.register('editor', [echoTool('editor_echo')]);
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  await waitUntil(async () =>
    (await agent.client.listTools()).tools.some((x) => x.name === 'editor_echo'),
  );

  const caller = callerContext();
  const pending = agent.client.callTool({
    name: 'editor_echo',
    arguments: { text: 'hi' },
    _meta: { traceparent: caller.traceparent },
  });
  const req = await app.next<{ request_id: string; _meta?: { traceparent: string } }>(
    (f) => f.type === 'client_tool.request',
  );
  const [, traceId] = String(req.data._meta?.traceparent ?? '').split('-');
  assert.equal(traceId, caller.traceId, JSON.stringify(req.data));
  assert.equal((await app.claim(req.data.request_id)).status, 200);
  assert.equal(
    (await app.answer(req.data.request_id, { ok: true, content: [{ type: 'text', text: 'back' }] }))
      .status,
    200,
  );
  await pending;
  const server = await receiver.waitFor(() =>
    inTrace(caller.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
  );
  assert.equal(server.name, 'tools/call editor_echo');
  const producer = await receiver.waitFor(() =>
    childrenOf(server).find((s) => s.kind === SPAN_KIND.PRODUCER),
  );
  assert.equal(producer.name, 'client_tool editor_echo');
  assert.equal(
    req.data._meta!.traceparent.split('-')[2],
    producer.spanId,
    "the app's parent is the daemon's client_tool span",
  );

  const stdio = spawnServe(d);
  t.after(async () => void (await stdio.close()));
  const init = await stdio.init([lookupTool()]);
  assert.ok(init.result, JSON.stringify(init));
  await waitUntil(async () =>
    (await agent.client.listTools()).tools.some((x) => x.name === 'client__lookup_record'),
  );
  const viaStdio = callerContext();
  const call2 = agent.client.callTool({
    name: 'client__lookup_record',
    arguments: { id: 'r1' },
    _meta: { traceparent: viaStdio.traceparent },
  });
  const frame = await stdio.nextCall();
  assert.equal(
    String(frame.params._meta?.traceparent ?? '').split('-')[1],
    viaStdio.traceId,
    JSON.stringify(frame.params),
  );
  await stdio.answer(frame, { text: 'found' });
  await call2;
});

test('kb_search carries the trace context to the knowledge upstream', async (t) => {
  const { seen, rt } = await kbTurn(t, d, { channel: 'channel:kb', agent: 'k1' });
  const caller = callerContext();
  const res = await rpc(
    rt.mcpUrl,
    rt.token(),
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'kb_search',
        arguments: { query: 'deploy' },
        _meta: { traceparent: caller.traceparent },
      },
    },
    { 'mcp-protocol-version': '2025-06-18' },
  );
  assert.equal(JSON.parse(res.body).result.isError, false, res.body);
  const [, traceId, parentId] = String(seen.at(-1)?.traceparent ?? '').split('-');
  assert.equal(traceId, caller.traceId);
  const server = await receiver.waitFor(() =>
    inTrace(caller.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
  );
  const client = await receiver.waitFor(() =>
    childrenOf(server).find((s) => s.kind === SPAN_KIND.CLIENT),
  );
  assert.equal(client.name, 'POST kb search');
  assert.equal(parentId, client.spanId);
});
