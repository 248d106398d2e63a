import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../lib/clock.js';
import { MemoryIndexes } from '../../daemon/knowledge/memory.js';
import { EmbeddedKnowledge } from '../../daemon/knowledge/kb-embedded.js';
import { ResultGate } from '../../daemon/results/gate.js';
import { SecretSet, type SecretSource } from '../../daemon/masking/secrets.js';
import { SpillStore } from '../../daemon/results/spill.js';

/**
 * The knowledge indexes hold masked text: snippets are marked on it, a query
 * cannot find a secret's words, and an index masked under an older set of
 * values is rebuilt when a value is added (a reload).
 */
const VALUE = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';

function setUp(t: import('node:test').TestContext) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-kbmask-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  let pairs: [string, string][] = [];
  let version = 0;
  const source: SecretSource = { version: () => version, entries: () => pairs };
  const secrets = new SecretSet();
  secrets.add(source);
  const gate = new ResultGate(
    secrets,
    new SpillStore({ dir: join(home, 'spill'), clock: systemClock }),
  );
  const configure = (p: [string, string][]) => {
    pairs = p;
    version++;
  };
  return { home, gate, configure };
}

test('a marker never lands inside a masked name: a query for one of its words highlights the whole name', async (t) => {
  const { home, gate, configure } = setUp(t);
  configure([['GITHUB_TOKEN', VALUE]]);
  mkdirSync(join(home, 'memory', 'a1'), { recursive: true });
  writeFileSync(
    join(home, 'memory', 'a1', 'n.md'),
    `# Release\nthe registry token is ${VALUE} today\n`,
  );
  const memory = new MemoryIndexes({ home, clock: systemClock, gate, buildWaitMs: 10_000 });
  t.after(() => memory.close());
  const page = await memory.search('a1', { query: 'github', limit: 10 });
  assert.equal(page.hits.length, 1);
  assert.match(page.hits[0]!.snippet, /the registry token is \[\[GITHUB_TOKEN\]\] today/);
  assert.match(
    (await memory.search('a1', { query: 'token', limit: 10 })).hits[0]!.snippet,
    /\[token\] is \[\[GITHUB_TOKEN\]\]/,
  );
  // The value's own words were never indexed: searching them finds nothing.
  for (const query of ['ghp', '0123456789abcdefghijABCDEFGHIJ012345', 'ghp*', '0123*'])
    assert.equal((await memory.search('a1', { query, limit: 10 })).hits.length, 0, query);
});

test('an index masked under older values is rebuilt when a value is added (reload), memory and kb alike', async (t) => {
  const { home, gate, configure } = setUp(t);
  mkdirSync(join(home, 'memory', 'a1'), { recursive: true });
  mkdirSync(join(home, 'kb'), { recursive: true });
  const doc = `# Release\nthe registry uses ${VALUE} today\n`;
  writeFileSync(join(home, 'memory', 'a1', 'n.md'), doc);
  writeFileSync(join(home, 'kb', 'n.md'), doc);
  const memory = new MemoryIndexes({ home, clock: systemClock, gate, buildWaitMs: 10_000 });
  t.after(() => memory.close());
  const kb = new EmbeddedKnowledge({ home, clock: systemClock, gate });
  t.after(() => kb.close());
  // Not configured yet: nothing to mask, so the value is ordinary text.
  assert.ok(
    (await memory.search('a1', { query: 'registry', limit: 10 })).hits[0]!.snippet.includes(VALUE),
  );
  assert.ok((await kb.search({ query: 'registry', limit: 10 })).hits[0]!.snippet.includes(VALUE));
  configure([['GITHUB_TOKEN', VALUE]]);
  const m = await memory.search('a1', { query: 'registry', limit: 10 });
  assert.match(m.hits[0]!.snippet, /uses \[GITHUB_TOKEN\] today/);
  assert.equal(
    (await memory.search('a1', { query: 'ghp', limit: 10 })).hits.length,
    0,
    'the rebuilt index no longer holds the value',
  );
  let k: Awaited<ReturnType<typeof kb.search>> | undefined;
  for (let i = 0; i < 50 && !k; i++) {
    try {
      k = await kb.search({ query: 'registry', limit: 10 });
    } catch (err) {
      assert.equal((err as { code?: string }).code, 'index_unavailable');
    }
  }
  assert.match(k!.hits[0]!.snippet, /uses \[GITHUB_TOKEN\] today/);
  assert.equal((await kb.search({ query: 'ghp', limit: 10 })).hits.length, 0);
  assert.equal((await kb.fetch({ docId: 'n.md' })).text, doc.replace(VALUE, '[GITHUB_TOKEN]'));
});

test('a multi-line secret keeps line numbers true: masked text holds its line breaks', async (t) => {
  const { home, gate, configure } = setUp(t);
  const pem = `-----BEGIN KEY-----\n${'QUJD'.repeat(16)}\n${'REVG'.repeat(16)}\n-----END KEY-----`;
  configure([['PRIVATE_KEY', pem]]);
  mkdirSync(join(home, 'kb'), { recursive: true });
  writeFileSync(
    join(home, 'kb', 'k.md'),
    `# Keys\n${pem}\nafter the key comes the marker word zebra\n`,
  );
  const kb = new EmbeddedKnowledge({ home, clock: systemClock, gate });
  t.after(() => kb.close());
  const hit = (await kb.search({ query: 'zebra', limit: 10 })).hits[0]!;
  assert.ok(
    hit.lineStart !== undefined && hit.lineStart <= 6 && (hit.lineEnd ?? 0) >= 6,
    JSON.stringify(hit),
  );
  const page = await kb.fetch({ docId: 'k.md' });
  assert.equal(
    page.text,
    '# Keys\n[PRIVATE_KEY]\n\n\n\nafter the key comes the marker word zebra\n',
  );
  assert.equal(page.lineEnd, 6);
});
