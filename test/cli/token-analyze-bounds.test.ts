import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { PIECE_CHARS, countInPieces, pieces } from '../../cli/token/pieces.js';
import { MAX_LINE_DEPTH } from '../../cli/token/session.js';
import { startDaemon } from '../../devkit/daemon.js';

const count = (t: string) => countTokens(t, { disallowedSpecial: new Set() });

test('token counting in pieces: ordinary text counts exactly as a whole, and the pieces join to the text', () => {
  const word = fc.stringMatching(/^[A-Za-z0-9'.,!?(){}":é日本]{1,40}$/);
  const gap = fc.constantFrom(' ', '  ', '\n', '\n\n', ' \n ', '\t', '\u00a0', ' \u3000');
  const text = fc
    .array(fc.tuple(word, gap), { minLength: 0, maxLength: 900 })
    .map((xs) => xs.map(([w, g]) => w + g).join(''));
  fc.assert(
    fc.property(text, (t) => {
      assert.equal([...pieces(t)].join(''), t);
      for (const p of pieces(t)) assert.ok(p.length <= PIECE_CHARS);
      assert.equal(countInPieces(t, count), count(t));
    }),
    { numRuns: 60 },
  );
  // A long run with no word boundary is cut when the piece is full, never inside a surrogate pair.
  const emoji = '😀'.repeat(3000);
  assert.ok([...pieces(emoji)].every((p) => !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(p)));
});

test('token counting: a 128 KiB word, a run of spaces and of punctuation each take well under a second (one word took 66 s)', () => {
  for (const text of ['a'.repeat(128 * 1024), ' '.repeat(128 * 1024), '!'.repeat(128 * 1024)]) {
    const started = performance.now();
    const n = countInPieces(text, count);
    const ms = performance.now() - started;
    assert.ok(n > 0);
    assert.ok(ms < 1000, `${JSON.stringify(text.slice(0, 3))}…: ${ms.toFixed(0)} ms`);
  }
});

test('token analyze: a long word in a transcript, a deeply nested transcript, a malformed % in a store URL', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-token-bounds-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const resultLine = (content: string) =>
    JSON.stringify({
      type: 'user',
      message: { content: [{ type: 'tool_result', tool_use_id: 'u1', content }] },
    });
  const useLine = JSON.stringify({
    type: 'assistant',
    message: {
      content: [{ type: 'tool_use', id: 'u1', name: 'mcp__agentteam__memory_search', input: {} }],
    },
  });

  await t.test('a 128 KiB word in a tool result is counted in seconds, in pieces', async () => {
    const word = 'x'.repeat(128 * 1024);
    const file = join(dir, 'long.jsonl');
    writeFileSync(file, `${useLine}\n${resultLine(word)}\n`);
    const started = Date.now();
    const r = await d.cli(['token', 'analyze', '--session', file, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
    const tool = JSON.parse(r.stdout).session.tools[0];
    assert.deepEqual(
      { name: tool.name, bytes: tool.bytes, tokens: tool.tokens },
      { name: 'memory_search', bytes: word.length, tokens: countInPieces(word, count) },
    );
  });

  await t.test(
    'a transcript line nested 100 000 deep is a one-line error, not a stack trace',
    async () => {
      const file = join(dir, 'deep.jsonl');
      writeFileSync(
        file,
        `${useLine}\n${resultLine('ok').replace('"ok"', `${'['.repeat(100_000)}${']'.repeat(100_000)}`)}\n`,
      );
      const r = await d.cli(['token', 'analyze', '--session', file]);
      assert.equal(r.code, 2);
      assert.equal(JSON.parse(r.stdout).error.code, 'usage');
      assert.equal(
        r.stderr,
        `agentteam token analyze: the session file ${file}: line 2 nests deeper than ${MAX_LINE_DEPTH} levels of JSON; this is not a transcript token analyze reads\n`,
      );
      // At the bound it is read.
      const atBound = join(dir, 'at-bound.jsonl');
      const inner = MAX_LINE_DEPTH - 4; // the line's own object, message, content list and block take 4 levels
      writeFileSync(
        atBound,
        `${useLine}\n${resultLine('ok').replace('"ok"', `${'['.repeat(inner)}${']'.repeat(inner)}`)}\n`,
      );
      const ok = await d.cli(['token', 'analyze', '--session', atBound, '--json']);
      assert.equal(ok.code, 0, ok.stderr);
      const over = join(dir, 'over-bound.jsonl');
      writeFileSync(
        over,
        `${resultLine('ok').replace('"ok"', `${'['.repeat(inner + 1)}${']'.repeat(inner + 1)}`)}\n`,
      );
      assert.equal((await d.cli(['token', 'analyze', '--session', over])).code, 2);
    },
  );

  await t.test(
    'daemon start --store with a malformed percent-escape is a one-line error that never shows the password',
    async () => {
      for (const [url, what] of [
        ['postgres://user:se%zzcret@127.0.0.1:1/db', 'password'],
        ['postgres://user:secret@127.0.0.1:1/d%b', 'database name'],
        ['postgres://user:se%@127.0.0.1:1/db', 'password'],
      ] as const) {
        const home = mkdtempSync(join(dir, 'home-'));
        const r = await d.cli(['daemon', 'start', '--store', url], {
          env: { AGENTTEAM_HOME: home },
        });
        assert.equal(r.code, 2, r.stderr);
        assert.equal(
          r.stderr,
          `agentteam daemon start: the store URL's ${what} has a malformed percent-escape; write a literal % as %25\n`,
        );
        assert.ok(!r.stderr.includes('secret') && !r.stderr.includes('cret'));
        // The refusal's envelope on stdout never shows it either.
        assert.equal(JSON.parse(r.stdout).error.code, 'usage');
        assert.ok(!r.stdout.includes('secret') && !r.stdout.includes('cret'));
        // Through the environment too, and through the daemon's own entry point.
        const env = await d.cli(['daemon', 'start'], {
          env: { AGENTTEAM_HOME: home, AGENTTEAM_STORE_URL: url },
        });
        assert.equal(env.code, 2);
        assert.equal(env.stderr.split('\n').length, 2, env.stderr);
      }
    },
  );
});
