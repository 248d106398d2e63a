import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startDaemon, startRuntime, type Daemon, type Runtime } from '../../devkit/daemon.js';
import { callTool, type ToolError } from '../../devkit/knowledge.js';

async function post(d: Daemon, target: string, as: string, text: string): Promise<string> {
  const r = await d.cli(['message', 'post', '--target', target, '--as', as, text]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { data: { message: { id: string } } }).data.message.id;
}

async function bound(
  d: Daemon,
  agent: string,
  target: string,
  messageId: string,
): Promise<Runtime> {
  return startRuntime(d, {
    server: 'local',
    agent,
    runArgs: ['--turn-target', target, '--turn-message', messageId],
  });
}

interface SearchPage {
  hits: { docId: string; title: string; snippet: string; score: number }[];
  hasMore: boolean;
  nextCursor?: string;
}
interface FetchChunk {
  docId: string;
  title: string;
  text: string;
  lineStart: number;
  lineEnd: number;
  hasMore: boolean;
  nextCursor?: string;
}

function bigDoc(): string {
  const lines = ['# Runbook', ''];
  for (let i = 1; i <= 600; i++)
    lines.push(`step ${i}: check the flux capacitor ünïcödé ✓ and write it down`);
  return `${lines.join('\n')}\n`;
}

test('kb_search / kb_fetch: embedded source, bound to a human turn, every refusal distinct', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  mkdirSync(join(d.home, 'kb', 'guides'), { recursive: true });
  writeFileSync(
    join(d.home, 'kb', 'guides', 'deploy.md'),
    '# Deploying\n\nRun the canary deployment first, then promote.\n',
  );
  writeFileSync(join(d.home, 'kb', 'runbook.md'), bigDoc());

  const human = await post(d, 'channel:general', 'human:ada', 'How do we deploy?');
  const elsewhere = await post(d, 'channel:random', 'human:bob', 'Unrelated question');
  const dmOther = await post(d, 'dm:k2', 'human:ada', 'A private word for agent k2');
  const dmMine = await post(d, 'dm:k1', 'human:ada', 'A private word for agent k1');
  // An agent-written message: a runtime without a turn posts it.
  const writer = await startRuntime(d, { server: 'local', agent: 'k1' });
  t.after(() => writer.close());
  const sent = await callTool(writer.mcpUrl, writer.token(), 'message_send', {
    target: 'channel:general',
    content: 'agent note',
  });
  assert.equal(sent.isError, false);
  const agentMsg = (sent.data as { message: { id: string } }).message.id;

  await t.test('a turn bound to a human message searches and fetches', async () => {
    const rt = await bound(d, 'k1', 'channel:general', human);
    t.after(() => rt.close());
    let page: SearchPage | undefined;
    for (let i = 0; i < 30 && !page; i++) {
      const r = await callTool(rt.mcpUrl, rt.token(), 'kb_search', { query: 'canary deployment' });
      if (!r.isError) page = r.data as SearchPage;
      else {
        assert.equal((r.data as ToolError).code, 'index_unavailable');
        await new Promise((res) => setTimeout(res, 200));
      }
    }
    assert.ok(page);
    assert.equal(page.hits[0]?.docId, 'guides/deploy.md');
    assert.equal(page.hits[0]?.title, 'Deploying');
    assert.match(page.hits[0]!.snippet, /\[canary\] \[deployment\]/);

    const f = await callTool(rt.mcpUrl, rt.token(), 'kb_fetch', { docId: 'guides/deploy.md' });
    assert.equal(f.isError, false, JSON.stringify(f.data));
    assert.equal(
      (f.data as FetchChunk).text,
      '# Deploying\n\nRun the canary deployment first, then promote.\n',
    );
    assert.equal((f.data as FetchChunk).hasMore, false);

    // A large document comes in bounded chunks that reassemble exactly.
    let cursor: string | undefined;
    let text = '';
    let chunks = 0;
    let nextLine = 1;
    do {
      const r = await callTool(rt.mcpUrl, rt.token(), 'kb_fetch', {
        docId: 'runbook.md',
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(r.isError, false, JSON.stringify(r.data));
      const c = r.data as FetchChunk;
      assert.ok(Buffer.byteLength(c.text) <= 8192, 'a chunk is at most 8 KiB');
      assert.equal(c.lineStart, nextLine, 'line numbers continue');
      nextLine = c.lineEnd + 1;
      text += c.text;
      cursor = c.nextCursor;
      assert.equal(c.hasMore, cursor !== undefined);
      chunks++;
    } while (cursor && chunks < 50);
    assert.equal(text, bigDoc());
    assert.ok(chunks >= 4);

    const missing = await callTool(rt.mcpUrl, rt.token(), 'kb_fetch', { docId: '../store.db' });
    assert.equal((missing.data as ToolError).code, 'not_found');
    const forged = await callTool(rt.mcpUrl, rt.token(), 'kb_fetch', {
      docId: 'runbook.md',
      cursor: 'kf1.eyJvIjo1LCJsIjoxLCJkIjoieCJ9',
    });
    assert.equal((forged.data as ToolError).code, 'validation_failed');
  });

  await t.test(
    'refusals: agent-written, other target, unreadable target, no turn, missing message',
    async () => {
      const cases: [string, Runtime, string][] = [
        [
          'agent-written message',
          await bound(d, 'k1', 'channel:general', agentMsg),
          'turn_message_not_human',
        ],
        [
          'message of another target',
          await bound(d, 'k1', 'channel:general', elsewhere),
          'turn_target_mismatch',
        ],
        ['unreadable target', await bound(d, 'k1', 'dm:k2', dmOther), 'target_unreadable'],
        ['no turn', writer, 'turn_unbound'],
        [
          'missing message',
          await bound(d, 'k1', 'channel:general', 'msg_doesnotexist1'),
          'not_found',
        ],
      ];
      for (const [, rt] of cases) if (rt !== writer) t.after(() => rt.close());
      const codes = new Set<string>();
      for (const [name, rt, code] of cases) {
        for (const [tool, args] of [
          ['kb_search', { query: 'deploy' }],
          ['kb_fetch', { docId: 'guides/deploy.md' }],
        ] as const) {
          const r = await callTool(rt.mcpUrl, rt.token(), tool, args);
          assert.equal(r.isError, true, `${name}: ${tool} refused`);
          const e = r.data as ToolError;
          assert.equal(e.code, code, `${name}: ${tool} -> ${JSON.stringify(e)}`);
          assert.ok(e.hint, `${name}: says what to do instead`);
        }
        codes.add(code);
      }
      assert.equal(codes.size, cases.length, 'each refusal has its own code');
    },
  );

  await t.test('a direct conversation addressed to the agent is readable', async () => {
    const rt = await bound(d, 'k1', 'dm:k1', dmMine);
    t.after(() => rt.close());
    const r = await callTool(rt.mcpUrl, rt.token(), 'kb_fetch', { docId: 'guides/deploy.md' });
    assert.equal(r.isError, false, JSON.stringify(r.data));
  });

  await t.test('a thread turn is checked through its root', async () => {
    const inThread = await post(d, `thread:${human}`, 'human:ada', 'follow-up in the thread');
    const rt = await bound(d, 'k1', `thread:${human}`, inThread);
    t.after(() => rt.close());
    const r = await callTool(rt.mcpUrl, rt.token(), 'kb_fetch', { docId: 'guides/deploy.md' });
    assert.equal(r.isError, false, JSON.stringify(r.data));
  });

  await t.test('without a kb folder or upstream, kb_search is a classified error', async () => {
    const d2 = await startDaemon();
    t.after(() => d2.close());
    const msg = await post(d2, 'channel:general', 'human:ada', 'anything?');
    const rt = await bound(d2, 'k1', 'channel:general', msg);
    t.after(() => rt.close());
    const r = await callTool(rt.mcpUrl, rt.token(), 'kb_search', { query: 'deploy' });
    assert.equal((r.data as ToolError).code, 'index_unavailable');
    assert.ok((r.data as ToolError).hint);
  });

  await t.test('run refuses a half or malformed turn binding', async () => {
    const half = await d.cli([
      'run',
      '--server',
      'local',
      '--agent',
      'k1',
      '--turn-target',
      'channel:general',
      '--',
      process.execPath,
      '-e',
      '0',
    ]);
    assert.notEqual(half.code, 0);
    assert.match(half.stderr, /turn/);
    const bad = await d.cli([
      'run',
      '--server',
      'local',
      '--agent',
      'k1',
      '--turn-target',
      'general',
      '--turn-message',
      human,
      '--',
      process.execPath,
      '-e',
      '0',
    ]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /turnTarget|turn-target/);
  });
});

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
