import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../devkit/cli.js';
import { startRuntime } from '../../devkit/daemon.js';
import { rawRequest, rpc } from '../../devkit/http.js';
import { startUpstream } from '../../devkit/extension-upstream.js';
import { SPAN_KIND } from '../../devkit/otlp-receiver.js';
import { callerContext, childrenOf, d, inTrace, receiver } from '../../devkit/otel.js';

/**
 * A caller's `tracestate` is carried into the daemon's spans (their
 * `traceState`, exported over OTLP) and on to every upstream it calls. A
 * runtime that put its own token there had it exported to the collector
 * and sent to the extension and knowledge upstreams. A tracestate holding a
 * value the result gate masks is dropped; any other is carried as before.
 */

/**
 * A tracestate member value holds at most 256 characters, less than a
 * runtime token, so a planted token is split over members: `a=…,b=…`.
 */
function planted(token: string): { tracestate: string; pieces: string[] } {
  const pieces = token.match(/.{1,200}/g) ?? [];
  return { tracestate: pieces.map((p, i) => `p${i}=${p}`).join(','), pieces };
}

const nowhere = (pieces: readonly string[], upstreamHeaders: IncomingHttpHeaders[]) => {
  for (const piece of pieces) {
    assert.equal(
      receiver.bodies.some((b) => b.includes(piece)),
      false,
      'no piece of the token is in an OTLP body',
    );
    assert.equal(
      upstreamHeaders.some((h) => JSON.stringify(h).includes(piece)),
      false,
      'no piece of the token is in an upstream request',
    );
  }
};

test("Exec: a tracestate carrying the runtime's token reaches neither the OTLP export nor the extension upstream", async (t) => {
  const up = await startUpstream();
  t.after(() => up.close());
  const file = join(d.home, 'github.json');
  writeFileSync(
    file,
    readFileSync(join(ROOT, 'examples/extensions/github.json'), 'utf8').replace(
      'http://127.0.0.1:8787',
      up.url,
    ),
  );
  assert.equal((await d.cli(['extension', 'install', file])).code, 0);
  const rt = await startRuntime(d, { server: 'local', agent: 't1' });
  t.after(() => rt.close());
  const send = async (tracestate: string) => {
    const caller = callerContext();
    const res = await rawRequest(
      `${rt.base}/github/watch`,
      'POST',
      {
        authorization: `Bearer ${rt.token()}`,
        'content-type': 'application/json',
        traceparent: caller.traceparent,
        tracestate,
      },
      JSON.stringify({ repo: 'acme/api', number: 5, target: 'channel:reviews' }),
    );
    assert.equal(res.status, 200, res.body);
    const server = await receiver.waitFor(() =>
      inTrace(caller.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
    );
    await receiver.waitFor(() => childrenOf(server).find((s) => s.kind === SPAN_KIND.CLIENT));
    return up.received.at(-1)!.headers;
  };
  // An ordinary tracestate still goes on, so the check below could see one.
  assert.equal((await send('vendor=plain')).tracestate, 'vendor=plain');
  const { tracestate, pieces } = planted(rt.token());
  const got = await send(`vendor=plain,${tracestate}`);
  assert.equal(got.tracestate, undefined, 'dropped whole, not carried in part');
  nowhere(
    pieces,
    up.received.map((r) => r.headers),
  );
});

test("MCP: a tracestate in _meta carrying the runtime's token reaches neither the OTLP export nor the kb upstream", async (t) => {
  const seen: IncomingHttpHeaders[] = [];
  const upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req.headers);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ hits: [], hasMore: false }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => upstream.close(() => r())));
  writeFileSync(
    join(d.home, 'kb.json'),
    JSON.stringify({
      upstream: {
        url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        timeoutMs: 2000,
      },
    }),
  );
  t.after(() => rmSync(join(d.home, 'kb.json'), { force: true }));
  assert.equal((await d.cli(['daemon', 'reload'])).code, 0);
  const posted = await d.cli([
    'message',
    'post',
    '--target',
    'channel:ts',
    '--as',
    'human:ada',
    'How do we deploy?',
  ]);
  const messageId = (JSON.parse(posted.stdout) as { data: { message: { id: string } } }).data
    .message.id;
  const rt = await startRuntime(d, {
    server: 'local',
    agent: 't2',
    runArgs: ['--turn-target', 'channel:ts', '--turn-message', messageId],
  });
  t.after(() => rt.close());
  const search = async (tracestate: string) => {
    const caller = callerContext();
    const _meta = { traceparent: caller.traceparent, tracestate };
    const res = await rpc(
      rt.mcpUrl,
      rt.token(),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'kb_search', arguments: { query: 'deploy' }, _meta },
      },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    assert.equal(JSON.parse(res.body).result.isError, false, res.body);
    const server = await receiver.waitFor(() =>
      inTrace(caller.traceId).find((s) => s.kind === SPAN_KIND.SERVER),
    );
    await receiver.waitFor(() => childrenOf(server).find((s) => s.kind === SPAN_KIND.CLIENT));
    return seen.at(-1)!;
  };
  assert.equal((await search('vendor=plain')).tracestate, 'vendor=plain');
  const { tracestate, pieces } = planted(rt.token());
  assert.equal((await search(tracestate)).tracestate, undefined);
  nowhere(pieces, seen);
});
