import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import {
  callTool,
  postMessage as post,
  turnRuntime as bound,
  type FetchChunk,
  type SearchPage,
  type ToolError,
} from '../../devkit/knowledge.js';

/**
 * The knowledge tools against an upstream service (`kb.json`): the turn is
 * checked first, then each call is forwarded with its target and message,
 * and an upstream failure keeps the stage it names.
 */

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

function upstreamServer(seen: Seen[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<
        string,
        unknown
      >;
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof value === 'string' ? value : JSON.stringify(value));
      };
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/knowledge/'))
        return send(404, 'not here');
      const q = String(body.query ?? body.docId ?? '');
      if (q === 'invalid')
        return send(400, { error: { stage: 'validation', message: 'query rejected' } });
      if (q === 'scope') return send(403, { error: { message: 'no scope for this target' } });
      if (q === 'staged')
        return send(502, {
          error: { stage: 'scope_resolution', message: 'target unknown to core' },
        });
      if (q === 'broken') return send(500, 'oops');
      if (q === 'shape') return send(200, { hits: 'nope' });
      if (req.url === '/v1/knowledge/search') {
        return send(200, {
          hits: [{ docId: 'up-1', title: 'Upstream doc', snippet: 'from [upstream]', score: 3.5 }],
          hasMore: false,
        });
      }
      return send(200, { docId: q, title: 'Upstream doc', text: 'upstream text', hasMore: false });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

test('kb_search / kb_fetch: upstream variant, forwarded turn, failures keep their stage', async (t) => {
  const seen: Seen[] = [];
  const { server, url } = await upstreamServer(seen);
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const d = await startDaemon();
  t.after(() => d.close());
  const configure = async (upstreamUrl: string) => {
    writeFileSync(
      join(d.home, 'kb.json'),
      JSON.stringify({ upstream: { url: upstreamUrl, timeoutMs: 2000 } }),
    );
    const r = await d.cli(['daemon', 'reload']);
    assert.equal(r.code, 0, r.stderr);
  };
  await configure(url);
  const human = await post(d, 'channel:general', 'human:ada', 'How do we deploy?');
  const rt = await bound(d, 'k1', 'channel:general', human);
  t.after(() => rt.close());

  await t.test(
    'search and fetch are forwarded with target key, target type and message id',
    async () => {
      const s = await callTool(rt.mcpUrl, rt.token(), 'kb_search', { query: 'deploy', limit: 3 });
      assert.equal(s.isError, false, JSON.stringify(s.data));
      assert.deepEqual((s.data as SearchPage).hits, [
        { docId: 'up-1', title: 'Upstream doc', snippet: 'from [upstream]', score: 3.5 },
      ]);
      const req = seen.at(-1)!;
      assert.equal(req.path, '/v1/knowledge/search');
      assert.equal(req.headers['agentteam-target-key'], 'general');
      assert.equal(req.headers['agentteam-target-type'], 'channel');
      assert.equal(req.headers['agentteam-message-id'], human);
      assert.deepEqual(req.body, {
        query: 'deploy',
        limit: 3,
        turn: { targetKey: 'general', targetType: 'channel', messageId: human },
      });
      assert.equal(
        JSON.stringify(req.headers).includes(rt.token()),
        false,
        'the runtime token is never forwarded',
      );

      const f = await callTool(rt.mcpUrl, rt.token(), 'kb_fetch', { docId: 'up-1' });
      assert.equal(f.isError, false, JSON.stringify(f.data));
      assert.equal((f.data as FetchChunk).text, 'upstream text');
      assert.equal(seen.at(-1)!.path, '/v1/knowledge/fetch');
    },
  );

  await t.test('each failure keeps its stage', async () => {
    const stageOf = async (args: Record<string, unknown>, tool = 'kb_search') => {
      const r = await callTool(rt.mcpUrl, rt.token(), tool, args);
      assert.equal(r.isError, true);
      const e = r.data as ToolError;
      assert.equal(e.code, 'upstream_error');
      assert.ok(e.hint);
      return e.metadata?.stage;
    };
    assert.equal(await stageOf({ query: 'invalid' }), 'validation');
    assert.equal(await stageOf({ query: 'scope' }), 'scope_resolution');
    assert.equal(
      await stageOf({ query: 'staged' }),
      'scope_resolution',
      'a stage the body names wins over the status',
    );
    assert.equal(await stageOf({ query: 'broken' }), 'upstream');
    assert.equal(
      await stageOf({ query: 'shape' }),
      'upstream',
      'an answer off the output schema never reaches the model',
    );
    assert.equal(await stageOf({ docId: 'invalid' }, 'kb_fetch'), 'validation');
    await configure(`${url}/missing-prefix`);
    assert.equal(await stageOf({ query: 'deploy' }), 'route_missing');
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise<void>((r) => dead.close(() => r()));
    await configure(deadUrl);
    assert.equal(await stageOf({ query: 'deploy' }), 'upstream');
    await configure(url);
  });

  await t.test('the turn is checked before anything is forwarded', async () => {
    const agentRt = await startRuntime(d, { server: 'local', agent: 'k9' });
    t.after(() => agentRt.close());
    const sent = await callTool(agentRt.mcpUrl, agentRt.token(), 'message_send', {
      target: 'channel:general',
      content: 'agent note',
    });
    const agentMsg = (sent.data as { message: { id: string } }).message.id;
    const wrong = await bound(d, 'k9', 'channel:general', agentMsg);
    t.after(() => wrong.close());
    const before = seen.length;
    const r = await callTool(wrong.mcpUrl, wrong.token(), 'kb_search', { query: 'deploy' });
    assert.equal((r.data as ToolError).code, 'turn_message_not_human');
    const none = await callTool(agentRt.mcpUrl, agentRt.token(), 'kb_search', { query: 'deploy' });
    assert.equal((none.data as ToolError).code, 'turn_unbound');
    assert.equal(seen.length, before, 'the upstream was not called');
  });
});
