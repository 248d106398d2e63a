import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { systemClock } from '../../lib/clock.js';
import { ExecError } from '../../daemon/errors/exec-error.js';
import { chunkText } from '../../daemon/knowledge/chunk.js';
import type { Masked } from '../../daemon/masking/masked.js';
import { gateWith } from '../../devkit/gate.js';
import { FolderIndex } from '../../daemon/knowledge/folder-index.js';
import { MemoryIndexes } from '../../daemon/knowledge/memory.js';
import { clipBytes, searchPage } from '../../daemon/knowledge/text-search.js';
import { jsonBytes } from '../../catalog/limits.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-index-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a first build that is still running answers index_unavailable with progress and a hint, then serves', async (t) => {
  const home = tempDir(t);
  const folder = join(home, 'memory', 'a1');
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < 600; i++) writeFileSync(join(folder, `n${i}.md`), `# n${i}\nword${i} here\n`);
  const memory = new MemoryIndexes({ home, clock: systemClock, buildWaitMs: 0, gate: gateWith() });
  t.after(() => memory.close());
  await assert.rejects(memory.search('a1', { query: 'word5', limit: 10 }), (err: unknown) => {
    assert.ok(err instanceof ExecError);
    assert.equal(err.code, 'index_unavailable');
    assert.match(err.message, /being built \((\d+ of 600 files so far|listing the files)\)/);
    assert.match(err.extra.hint ?? '', /grep/);
    return true;
  });
  let page: Awaited<ReturnType<typeof memory.search>> | undefined;
  for (let i = 0; i < 100 && !page; i++) {
    try {
      page = await memory.search('a1', { query: 'word5', limit: 10 });
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  assert.equal(page?.hits[0]?.path, 'n5.md');
  assert.equal(page?.hits[0]?.line, 2);
});

test('chunks cover every non-blank line once, with exact line ranges', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          fc.constant(''),
          fc.constant('# Head'),
          fc.string({ maxLength: 200 }).map((s) => s.replace(/[\r\n]/g, ' ')),
        ),
        { maxLength: 120 },
      ),
      (lines) => {
        const text = lines.join('\n');
        const chunks = chunkText(text as Masked);
        const all = text.split('\n');
        let next = 1;
        for (const c of chunks) {
          assert.ok(c.lineStart >= next && c.lineEnd >= c.lineStart);
          assert.equal(c.text, all.slice(c.lineStart - 1, c.lineEnd).join('\n'));
          assert.ok(c.lineEnd - c.lineStart < 24);
          for (let l = next; l < c.lineStart; l++)
            assert.equal(all[l - 1]!.trim(), '', 'only blank lines are left out');
          next = c.lineEnd + 1;
        }
      },
    ),
  );
});

test('clipBytes keeps at most the byte budget and never splits a character', () => {
  // The budget is bytes as JSON spells the text (a snippet travels in JSON): `"` and a backslash cost two, a control character six.
  // Text that fits is kept whole; what fits in UTF-8 but not in JSON is cut (seeds 1 and -655202177 found such text).
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme', maxLength: 400 }),
      fc.integer({ min: 4, max: 400 }),
      (s, max) => {
        const out = clipBytes(s as Masked, max);
        assert.ok(jsonBytes(out) <= max);
        assert.ok(Buffer.byteLength(out) <= max);
        assert.equal(Buffer.from(out).toString('utf8'), out, 'valid UTF-8');
        if (jsonBytes(s) <= max) assert.equal(out, s);
      },
    ),
  );
  for (const seed of [1, -655202177]) {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 4, max: 400 }),
        (s, max) => {
          const out = clipBytes(s as Masked, max);
          return jsonBytes(out) <= max && (jsonBytes(s) > max || out === s);
        },
      ),
      { seed, numRuns: 2_000 },
    );
  }
});

test('no query text can break the FTS5 expression: a page or validation_failed, never a SQLite error', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'root'));
  writeFileSync(join(dir, 'root', 'a.md'), '# A\nalpha beta "gamma" NEAR OR AND NOT delta*\n');
  const index = new FolderIndex({
    root: join(dir, 'root'),
    dbPath: join(dir, 'i.db'),
    clock: systemClock,
    gate: gateWith(),
  });
  t.after(() => index.close());
  assert.ok(await index.whenReady(5000));
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (q) => {
      try {
        searchPage(index.db, {
          scope: 's',
          cursorPrefix: 'x',
          query: q,
          limit: 5,
          snippetBytes: 320,
          gate: gateWith(),
        });
      } catch (err) {
        assert.ok(
          err instanceof ExecError && err.code === 'validation_failed',
          `query ${JSON.stringify(q)}: ${String(err)}`,
        );
      }
    }),
    { numRuns: 500 },
  );
  const hits = searchPage(index.db, {
    scope: 's',
    cursorPrefix: 'x',
    query: 'NEAR OR',
    limit: 5,
    snippetBytes: 320,
    gate: gateWith(),
  }).hits;
  assert.equal(hits.length, 1, 'operator words are searched as words');
});

test('a memory folder removed or replaced while its index is open is noticed at the next search', async (t) => {
  const home = tempDir(t);
  const folder = join(home, 'memory', 'a2');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'one.md'), '# one\nfirstword\n');
  const memory = new MemoryIndexes({
    home,
    clock: systemClock,
    buildWaitMs: 5000,
    gate: gateWith(),
  });
  t.after(() => memory.close());
  assert.equal((await memory.search('a2', { query: 'firstword', limit: 10 })).hits.length, 1);
  rmSync(folder, { recursive: true });
  await assert.rejects(
    memory.search('a2', { query: 'firstword', limit: 10 }),
    (err: unknown) => err instanceof ExecError && err.code === 'index_unavailable',
  );
  mkdirSync(folder);
  writeFileSync(join(folder, 'two.md'), '# two\nsecondword\n');
  assert.equal(
    (await memory.search('a2', { query: 'firstword', limit: 10 })).hits.length,
    0,
    'the old folder is forgotten',
  );
  assert.equal(
    (await memory.search('a2', { query: 'secondword', limit: 10 })).hits[0]?.path,
    'two.md',
  );
});
