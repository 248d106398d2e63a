import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createServer, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../../devkit/daemon.js';
import { lookupTool, spawnServe } from '../../devkit/serve-stdio.js';
import { stdioCallSchema } from '../../catalog/operator/stdio-call.js';

/**
 * What the `serve --stdio` child takes off the daemon's wire: its event
 * stream and calls go through the one operator client (the hello's client key
 * on every call), and the call of a request event is checked against the
 * catalog's schema (catalog/operator/stdio-call.ts) before the app sees it.
 */

const call = (over: Record<string, unknown>) => ({
  session_id: 'ses_1',
  run_id: null,
  call_id: '6f1c2d9e-7a4b-4c3d-9e8f-0a1b2c3d4e5f',
  task_id: null,
  subagent_id: null,
  timeout_ms: 30000,
  ...over,
});

test('serve --stdio: the call of a request event reaches the app only when it matches the catalog schema', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-wire-'));
  let stream: ServerResponse | null = null;
  const seen: { method: string; path: string; key: string | undefined; body: string }[] = [];
  let seq = 0;
  const emit = (type: string, data: unknown) =>
    stream!.write(`id: ${++seq}\nevent: ${type}\ndata: ${JSON.stringify({ seq, type, data })}\n\n`);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        path: req.url!,
        key: req.headers['agentteam-client-key'] as string | undefined,
        body,
      });
      if (req.url!.startsWith('/api/v1/events')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        stream = res;
        // A comment, then the hello split across two writes, its lines ended by CRLF.
        res.write(': hi\n\n');
        res.write('event: hello\r\ndata: {"seq":0,"type":"hello","data":{"client_id":"c_wire",');
        res.write('"client_key":"key_wire"}}\r\n\r\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, data: {} }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  writeFileSync(join(home, 'daemon.json'), JSON.stringify({ url, pid: process.pid }));
  writeFileSync(join(home, 'operator.token'), 'wire-operator-token\n');
  t.after(() => {
    server.closeAllConnections();
    server.close();
    rmSync(home, { recursive: true, force: true });
  });
  const app = spawnServe({ home, url, pid: process.pid } as Daemon);
  t.after(() => app.close());

  const init = await app.init([lookupTool()]);
  assert.equal(init.result.instance_id, 'c_wire');
  const register = seen.find((s) => s.path === '/api/v1/client-tools/stdio')!;
  assert.equal(register.method, 'POST');
  assert.equal(register.key, 'key_wire', 'calls carry the client key of the hello');
  assert.equal(JSON.parse(register.body).client_id, 'c_wire');
  assert.equal(seen[0]!.path, '/api/v1/events?client_tools=1');

  // Each breaks the schema once; none reaches the app.
  const broken = [
    call({ session_id: 5 }),
    call({ call_id: '' }),
    call({ timeout_ms: 1.5 }),
    call({ extra: 'x' }),
    (({ task_id: _, ...rest }) => rest)(call({})),
  ];
  for (const [i, c] of broken.entries())
    emit('client_tool.request', {
      request_id: `req_bad${i}`,
      tool: 'client__lookup_record',
      arguments: {},
      call: c,
    });
  emit('client_tool.request', {
    request_id: 'req_good',
    tool: 'client__lookup_record',
    arguments: { record_id: 'x' },
    call: call({}),
  });
  const got = await app.nextCall();
  assert.deepEqual(got.params.data, {
    ...call({}),
    name: 'client__lookup_record',
    arguments: { record_id: 'x' },
  });
  assert.equal(
    app.frames.filter((f) => f.method === 'client.tool.call').length,
    1,
    'only the call that matches the schema was handed on',
  );
  assert.deepEqual(Object.keys(got.params.data).slice(0, 5), stdioCallSchema.required.slice(0, 5));

  // The answer goes to the request's reply row, with the client key.
  const answered = await app.answer(got, { text: 'ok' });
  assert.deepEqual(answered.result, { accepted: true });
  const reply = seen.find((s) => s.path === '/api/v1/client-tools/requests/req_good/reply')!;
  assert.equal(reply.key, 'key_wire');
  assert.deepEqual(JSON.parse(reply.body), { client_id: 'c_wire', status: 'success', text: 'ok' });
});
