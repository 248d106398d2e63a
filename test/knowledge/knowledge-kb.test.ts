import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, startRuntime, type Runtime } from '../../devkit/daemon.js';
import {
  callTool,
  postMessage as post,
  turnRuntime as bound,
  type FetchChunk,
  type SearchPage,
  type ToolError,
} from '../../devkit/knowledge.js';

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
