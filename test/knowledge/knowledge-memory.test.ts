import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLease } from '../../devkit/lease.js';
import { startDaemon, startRuntime, type Daemon } from '../../devkit/daemon.js';
import { callTool } from '../../devkit/knowledge.js';

interface Hit {
  path: string;
  lineStart: number;
  lineEnd: number;
  line: number;
  snippet: string;
  score: number;
}
interface Page {
  hits: Hit[];
  hasMore: boolean;
  nextCursor?: string;
}
type Outcome =
  | { ok: true; page: Page }
  | { ok: false; error: { code: string; message: string; hint?: string } };

async function search(url: string, token: string, args: Record<string, unknown>): Promise<Outcome> {
  const r = await callTool(url, token, 'memory_search', args);
  return r.isError
    ? { ok: false, error: r.data as { code: string; message: string } }
    : { ok: true, page: r.data as Page };
}

/** A note whose line 17 (1-based) holds a unique code word; the rest is shared filler. */
function note(i: number): string {
  const lines = [`# Note ${i}`, ''];
  for (let l = 3; l <= 40; l++)
    lines.push(
      l === 17
        ? `The codeword of item ${i} is zebra${i} and it is kept here.`
        : `filler line ${l} about the weekly planning meeting and roadmap`,
    );
  return `${lines.join('\n')}\n`;
}

test('memory_search: 1,000 files, exact locators, live updates, paging, isolation', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const folder = join(d.home, 'memory', 'm1');
  for (let b = 0; b < 10; b++) mkdirSync(join(folder, `box${b}`), { recursive: true });
  for (let i = 0; i < 1000; i++) writeFileSync(join(folder, `box${i % 10}`, `n${i}.md`), note(i));
  const rt = await startRuntime(d, { server: 'local', agent: 'm1' });
  t.after(() => rt.close());
  const url = rt.mcpUrl;
  const token = rt.token();

  /** The first answer may be index_unavailable while the first build runs; it says so and we retry. */
  async function searchReady(args: Record<string, unknown>): Promise<Page> {
    for (let i = 0; i < 50; i++) {
      const r = await search(url, token, args);
      if (r.ok) return r.page;
      assert.equal(r.error.code, 'index_unavailable', JSON.stringify(r.error));
      assert.ok(r.error.hint, 'index_unavailable says what to do instead');
      await new Promise((res) => setTimeout(res, 200));
    }
    throw new Error('the index never became ready');
  }

  await t.test('finds the right file and line among 1,000', async () => {
    const page = await searchReady({ query: 'zebra737' });
    assert.equal(page.hits.length, 1);
    const [hit] = page.hits;
    assert.equal(hit!.path, 'box7/n737.md');
    assert.equal(hit!.line, 17);
    assert.ok(hit!.lineStart <= 17 && hit!.lineEnd >= 17);
    assert.match(hit!.snippet, /\[zebra737\]/);
    assert.equal(page.hasMore, false);
    assert.equal(page.nextCursor, undefined);
  });

  await t.test('locators never carry whole files', async () => {
    const page = await searchReady({ query: 'weekly planning', limit: 50 });
    assert.equal(page.hits.length, 50);
    const size = Buffer.byteLength(note(1));
    for (const hit of page.hits) {
      assert.deepEqual(Object.keys(hit).sort(), [
        'line',
        'lineEnd',
        'lineStart',
        'path',
        'score',
        'snippet',
      ]);
      assert.ok(Buffer.byteLength(hit.snippet) <= 320, 'snippet within 320 bytes');
      assert.ok(Buffer.byteLength(hit.snippet) < size / 4, 'a snippet is a small part of the file');
      assert.ok(hit.lineEnd - hit.lineStart < 40);
    }
  });

  await t.test('an edited file is found under its new text within 2 s', async () => {
    const file = join(folder, 'box3', 'n123.md');
    writeFileSync(file, note(123).replace('zebra123', 'quokka4242'));
    const started = Date.now();
    let found: Hit | undefined;
    while (Date.now() - started < 2000) {
      const page = await searchReady({ query: 'quokka4242' });
      found = page.hits[0];
      if (found) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(found, 'found within 2 s');
    assert.equal(found.path, 'box3/n123.md');
    assert.equal(found.line, 17);
    assert.equal((await searchReady({ query: 'zebra123' })).hits.length, 0, 'the old text is gone');
    assert.equal(
      (await searchReady({ query: 'zebra737' })).hits[0]?.path,
      'box7/n737.md',
      'other files are untouched by the re-index',
    );
    // A new file in a new folder, and a deleted one.
    mkdirSync(join(folder, 'fresh', 'deep'), { recursive: true });
    writeFileSync(join(folder, 'fresh', 'deep', 'x.txt'), 'line one\nthe wombat9 sleeps\n');
    rmSync(join(folder, 'box1', 'n1.md'));
    let ok = false;
    for (
      const until = Date.now() + 2000;
      Date.now() < until && !ok;
      await new Promise((r) => setTimeout(r, 50))
    ) {
      const a = await searchReady({ query: 'wombat9' });
      const b = await searchReady({ query: 'zebra1' });
      ok = a.hits[0]?.path === 'fresh/deep/x.txt' && a.hits[0]?.line === 2 && b.hits.length === 0;
    }
    assert.ok(ok, 'a created file is found and a deleted one is gone within 2 s');
  });

  await t.test(
    'cursor paging walks every hit once; a foreign or forged cursor is refused',
    async () => {
      const seen = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await searchReady({
          query: 'roadmap',
          limit: 50,
          ...(cursor ? { cursor } : {}),
        });
        for (const h of page.hits) {
          const key = `${h.path}:${h.lineStart}`;
          assert.ok(!seen.has(key), `no duplicate ${key}`);
          seen.add(key);
        }
        cursor = page.nextCursor;
        assert.equal(page.hasMore, cursor !== undefined);
        pages++;
      } while (cursor && pages < 100);
      // 999 notes (one deleted), each with two passages holding "roadmap" (lines 1-24 and 25-40).
      assert.equal(seen.size, 999 * 2);
      const first = await searchReady({ query: 'roadmap', limit: 5 });
      const other = await search(url, token, { query: 'planning', cursor: first.nextCursor });
      assert.equal(other.ok, false);
      assert.equal(!other.ok && other.error.code, 'validation_failed');
      const forged = await search(url, token, { query: 'roadmap', cursor: `${first.nextCursor}x` });
      assert.equal(!forged.ok && forged.error.code, 'validation_failed');
    },
  );

  await t.test('symbolic links and hidden files are never followed or indexed', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'agentteam-outside-'));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, 'secret.md'), 'the outsidesecret77 lives here\n');
    symlinkSync(outside, join(folder, 'linked'));
    symlinkSync(join(outside, 'secret.md'), join(folder, 'secret-link.md'));
    mkdirSync(join(folder, '.hidden'));
    writeFileSync(join(folder, '.hidden', 'h.md'), 'outsidesecret77\n');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal((await searchReady({ query: 'outsidesecret77' })).hits.length, 0);
  });

  await t.test(
    'another agent sees only its own memory; no folder is a classified error',
    async () => {
      mkdirSync(join(d.home, 'memory', 'm2'), { recursive: true });
      writeFileSync(join(d.home, 'memory', 'm2', 'own.md'), '# m2\nonly m2 knows capybara5\n');
      const rt2 = await startRuntime(d, { server: 'local', agent: 'm2' });
      t.after(() => rt2.close());
      const mine = await search(rt2.mcpUrl, rt2.token(), { query: 'zebra737' });
      assert.ok(mine.ok && mine.page.hits.length === 0, 'm2 does not see m1 memory');
      assert.equal(
        (await searchReady({ query: 'capybara5' })).hits.length,
        0,
        'm1 does not see m2 memory',
      );
      const m2 = await search(rt2.mcpUrl, rt2.token(), { query: 'capybara5' });
      assert.ok(m2.ok && m2.page.hits[0]?.path === 'own.md' && m2.page.hits[0]?.line === 2);

      const rt3 = await startRuntime(d, { server: 'local', agent: 'nomemory' });
      t.after(() => rt3.close());
      const none = await search(rt3.mcpUrl, rt3.token(), { query: 'anything' });
      assert.equal(none.ok, false);
      assert.equal(!none.ok && none.error.code, 'index_unavailable');
      assert.match((!none.ok && none.error.hint) || '', /memory/);
    },
  );

  await t.test(
    'queries that are only operators are refused, operators are never interpreted',
    async () => {
      const bad = await search(url, token, { query: '"" * - ()' });
      assert.equal(!bad.ok && bad.error.code, 'validation_failed');
      const tricky = await searchReady({ query: 'zebra737 OR NEAR(x) body:zebra5' });
      assert.equal(
        tricky.hits.length,
        0,
        'OR/NEAR/column filters are plain words that do not occur',
      );
    },
  );

  await t.test('the memory-maintenance guidance ships with the tool', async () => {
    const lease = await openLease(d, { serverId: 'local', agentId: 'm1', runtime: 'claude' });
    t.after(() => lease.close());
    const guidance = readFileSync(lease.data.env.AGENTTEAM_GUIDANCE_FILE!, 'utf8');
    assert.match(guidance, /^## memory-maintenance$/m);
    assert.match(guidance, /`mcp__agentteam__memory_search`/);
    assert.match(guidance, /index_unavailable/);
  });

  await t.test('the index lives in its own database, not in store.db', () => {
    const db = readFileSync(join(d.home, 'index', 'memory', 'm1.db'));
    assert.ok(db.length > 0);
  });
});
