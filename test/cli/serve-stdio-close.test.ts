import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { STDIO_WIRE } from '../../catalog/stdio-tools.js';
import { operatorCall } from '../../devkit/http.js';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { connectAgent, connectApp } from '../../devkit/client-tools.js';
import { lookupTool, spawnServe, type StdioApp } from '../../devkit/serve-stdio.js';

const INIT = (id: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { required_capabilities: ['client.tools'], client_tools: [lookupTool()] },
  });
const OVERSIZED = `{"jsonrpc":"2.0","id":"big","method":"x","params":{"p":"${'p'.repeat(STDIO_WIRE.inputFrameBytes)}"}}`;

/** Waits for the child to end on its own; kills it (and fails) after `ms`. */
async function exitsWithin(app: StdioApp, ms: number): Promise<number | null> {
  const kill = setTimeout(() => app.child.kill('SIGKILL'), ms);
  const code = await app.exited;
  clearTimeout(kill);
  assert.notEqual(
    app.child.signalCode,
    'SIGKILL',
    `the child did not exit within ${ms} ms; stderr: ${app.stderr()}`,
  );
  return code;
}

async function stdioTools(d: Daemon): Promise<string[]> {
  return (
    JSON.parse((await operatorCall(d, 'GET', '/api/v1/client-tools')).body).data.tools as {
      name: string;
    }[]
  ).map((x) => x.name);
}

/** A stand-in daemon that accepts the child's event stream and never says hello: initialize stays in flight. */
async function stalledDaemon(t: { after(fn: () => unknown): void }) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-stall-'));
  const open = new Set<IncomingMessage>();
  let closed = 0;
  const server = createServer((req, res) => {
    open.add(req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': waiting\n\n');
    res.on('close', () => {
      open.delete(req);
      closed++;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  writeFileSync(
    join(home, 'daemon.json'),
    JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid }),
  );
  writeFileSync(join(home, 'operator.token'), 'stalled-operator-token\n');
  t.after(() => {
    server.closeAllConnections();
    server.close();
    rmSync(home, { recursive: true, force: true });
  });
  const d = { home, url: `http://127.0.0.1:${port}`, pid: process.pid } as Daemon;
  return { d, streams: () => ({ open: open.size, closed }) };
}

test('serve --stdio close behaviour holds while initialize is in flight', async (t) => {
  await t.test(
    'an oversized frame while the daemon has not answered initialize: only the closing error is written, the stream is closed, the child exits',
    async (t) => {
      const { d, streams } = await stalledDaemon(t);
      const app = spawnServe(d);
      app.send(INIT('i1'));
      // initialize is waiting on the daemon's hello.
      while (streams().open === 0) await new Promise((r) => setTimeout(r, 10));
      app.send(OVERSIZED);
      assert.equal(await exitsWithin(app, 6000), 1);
      assert.equal(app.frames.length, 1, JSON.stringify(app.frames).slice(0, 300));
      assert.equal(app.frames[0].id, null);
      assert.equal(app.frames[0].error.data.code, 'body_too_large');
      assert.equal(streams().open, 0, 'the half-open event stream was closed');
    },
  );

  await t.test(
    'stdin closing while the daemon has not answered initialize: the child still exits within the flush bound',
    async (t) => {
      const { d, streams } = await stalledDaemon(t);
      const app = spawnServe(d);
      app.send(INIT('i1'));
      while (streams().open === 0) await new Promise((r) => setTimeout(r, 10));
      app.child.stdin!.end();
      await exitsWithin(app, 6000);
      assert.ok(!app.frames.some((f) => f.result), 'initialize was not answered as a success');
      assert.equal(streams().open, 0);
    },
  );

  await t.test(
    'against a real daemon: initialize and an oversized frame in one write; nothing follows the closing error, the tools are withdrawn, the child exits',
    async (t) => {
      const d = await startDaemon();
      t.after(() => d.close());
      for (let round = 0; round < 3; round++) {
        const app = spawnServe(d);
        app.child.stdin!.write(`${INIT(`i${round}`)}\n${OVERSIZED}\n`);
        assert.equal(await exitsWithin(app, 6000), 1);
        const closing = app.frames.findIndex(
          (f) => f.id === null && f.error?.data?.code === 'body_too_large',
        );
        assert.ok(closing >= 0, JSON.stringify(app.frames).slice(0, 300));
        assert.equal(closing, app.frames.length - 1, 'no frame after the closing error');
        // Whether initialize got through before the close or not, nothing stays registered.
        const deadline = Date.now() + 5000;
        while ((await stdioTools(d)).length > 0 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual(await stdioTools(d), []);
      }
    },
  );
});

test('serve --stdio: every malformed frame gets exactly one answer (a repeated key plus a syntax error included)', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const app = spawnServe(d);
  t.after(() => app.close());
  let marker = 0;
  /** Sends the frames then a marker request; returns the frames written in between. */
  const answersTo = async (lines: (string | Buffer)[]) => {
    const before = app.frames.length;
    for (const l of lines) app.send(l);
    const id = `marker-${++marker}`;
    const done = await app.request('x.marker', undefined, id);
    assert.equal(done.error.data.code, 'unsupported_method');
    return app.frames.slice(before, app.frames.indexOf(done));
  };

  const repeatedPlusSyntax = '{"jsonrpc":"2.0","id":"a","id":"b","method":"initialize",';
  const one = await answersTo([repeatedPlusSyntax]);
  assert.equal(one.length, 1, JSON.stringify(one));
  assert.equal(one[0].id, null);
  assert.equal(one[0].error.data.code, 'invalid_json');

  const valid = fc
    .record({
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()),
      method: fc.constantFrom('initialize', 'client.tool.result', 'x.y'),
      params: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), {
        maxKeys: 4,
      }),
    })
    .map((o) => JSON.stringify(o));
  // Every kind of malformed line: cut short, a key repeated and then cut, not JSON at all, not UTF-8, nested too deep, not a request.
  const malformed = fc
    .oneof(
      valid.chain((s) => fc.integer({ min: 1, max: s.length - 1 }).map((n) => s.slice(0, n))),
      valid.chain((s) =>
        fc
          .integer({ min: 20, max: s.length + 10 })
          .map(
            (n) =>
              `${s.replace('"jsonrpc":"2.0"', '"jsonrpc":"2.0","jsonrpc":"2.0"').slice(0, n)},`,
          ),
      ),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc
        .uint8Array({ minLength: 1, maxLength: 16 })
        .map((b) =>
          Buffer.concat([
            Buffer.from('{"a":"'),
            Buffer.from(b),
            Buffer.from([0xff, 0xfe]),
            Buffer.from('"}'),
          ]),
        ),
      fc
        .integer({ min: STDIO_WIRE.jsonDepth + 1, max: 200 })
        .map((n) => '['.repeat(n) + ']'.repeat(n)),
      fc
        .jsonValue({ maxDepth: 2 })
        .filter((v) => v === null || typeof v !== 'object' || Array.isArray(v) || !('method' in v))
        .map((v) => JSON.stringify(v)),
    )
    .filter((l) => {
      const text = Buffer.isBuffer(l) ? l.toString('latin1') : l;
      if (text.includes('\n') || text.replace(/\r$/, '').length === 0) return false;
      try {
        const v = JSON.parse(text) as Record<string, unknown> | null;
        // A readable notification is answered by nothing, by design: not malformed.
        return !(
          v !== null &&
          typeof v === 'object' &&
          !Array.isArray(v) &&
          v.jsonrpc === '2.0' &&
          typeof v.method === 'string' &&
          !('id' in v)
        );
      } catch {
        return true;
      }
    });
  await fc.assert(
    fc.asyncProperty(fc.array(malformed, { minLength: 1, maxLength: 25 }), async (lines) => {
      const answers = await answersTo(lines);
      assert.equal(
        answers.length,
        lines.length,
        `${lines.length} frames, ${answers.length} answers: ${JSON.stringify(answers).slice(0, 400)}`,
      );
      for (const a of answers)
        assert.ok(a.error && typeof a.error.data.code === 'string', JSON.stringify(a));
    }),
    { numRuns: 12 },
  );
  assert.equal(app.child.exitCode, null, 'the child is still serving');
});

test("serve --stdio: a stdio group's calls can be seen and answered only by the child session that registered it", async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const child = spawnServe(d);
  t.after(() => child.close());
  const init = await child.init([lookupTool()]);
  const childId = init.result.instance_id as string;
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  // Another operator-token holder, with its own provider stream, learns the child's id from the group name.
  const other = await connectApp(d);
  t.after(() => other.close());
  const groups = JSON.parse(
    (await operatorCall(d, 'GET', '/api/v1/client-tools')).body,
  ).data.tools.map((x: { group: string }) => x.group);
  assert.deepEqual(groups, [`stdio.${childId}`]);

  const pending = agent.client.callTool({
    name: 'client__lookup_record',
    arguments: { record_id: 'secret-argument' },
  });
  const call = await child.nextCall();
  const requests = JSON.parse(
    (await operatorCall(d, 'GET', '/api/v1/client-tools/requests?pending=0')).body,
  ).data.requests;
  assert.deepEqual(requests, [], "the id-only listing leaves out a stdio child's calls");
  const asChild = await other.call('GET', `/api/v1/client-tools/requests?client_id=${childId}`);
  assert.equal(asChild.status, 404);
  assert.equal(asChild.body.error.code, 'unknown_client');
  assert.ok(!JSON.stringify(asChild.body).includes('secret-argument'));
  const asOther = await other.call(
    'GET',
    `/api/v1/client-tools/requests?client_id=${other.clientId}`,
  );
  assert.deepEqual(asOther.body.data.requests, []);
  // Its request id reaches the other stream redacted; answering with the child's id is refused every way.
  const redacted = await other.next((f) => f.type === 'client_tool.request');
  assert.deepEqual(Object.keys(redacted.data), ['request_id']);
  const id = redacted.data.request_id as string;
  for (const [path, body] of [
    [
      `/api/v1/client-tools/requests/${id}/reply`,
      { client_id: childId, status: 'success', text: 'forged' },
    ],
    [
      `/api/v1/client-tools/requests/${id}/result`,
      { client_id: childId, ok: true, content: [{ type: 'text', text: 'forged' }] },
    ],
    [`/api/v1/client-tools/requests/${id}/claim`, { client_id: childId }],
  ] as const) {
    const r = await other.call('POST', path, body);
    assert.equal(r.status, 404, `${path}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'unknown_client');
  }
  // A second registration in the child's name is refused as well.
  const again = await other.call('POST', '/api/v1/client-tools/stdio', {
    client_id: childId,
    tools: [lookupTool('client__hijack')],
  });
  assert.equal(again.body.error.code, 'unknown_client');
  // The child itself still answers, and the agent reads its answer.
  assert.deepEqual((await child.answer(call, { text: 'from the child' })).result, {
    accepted: true,
  });
  const r = await pending;
  assert.equal((r.content as { text: string }[])[0]!.text, 'from the child');
});
