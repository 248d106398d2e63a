import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { issuedMatcher } from '../../daemon/masking/issued-matcher.js';
import { SecretSet, buildMatcher, MIN_SECRET_BYTES } from '../../daemon/masking/secrets.js';
import type { SecretSource } from '../../daemon/masking/secrets.js';

// Values over a tiny alphabet with shared heads, so occurrences overlap, nest and share prefixes.
const HEADS = ['eyJhbGciOiJFZERTQSJ9.', 'eyJhbGciOiJFZERTQSJ9.x', 'k"\\\n', 'abababab'];
const value = fc
  .tuple(fc.constantFrom(...HEADS, ''), fc.stringMatching(/^[ab."\\\n]{0,24}$/))
  .map(([h, t]) => h + t)
  .filter((v) => Buffer.byteLength(v, 'utf8') >= MIN_SECRET_BYTES);
const pairs = fc.array(fc.tuple(fc.constantFrom('T1', 'T2', 'KEY'), value), {
  minLength: 1,
  maxLength: 12,
});

/** Text made of whole values, pieces of them and noise, in any order. */
const textFor = (vals: readonly (readonly [string, string])[]) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...vals.map(([, v]) => v)),
        fc.constantFrom(...vals.map(([, v]) => JSON.stringify(v).slice(1, -1))),
        fc
          .tuple(fc.constantFrom(...vals.map(([, v]) => v)), fc.nat(30), fc.nat(30))
          .map(([v, a, b]) => v.slice(Math.min(a, b), Math.max(a, b))),
        fc.stringMatching(/^[ab.x"\\\n]{0,6}$/),
      ),
      { maxLength: 20 },
    )
    .map((parts) => parts.join(''));

test('the issued-token index finds exactly what one alternation of the same literals finds', () => {
  fc.assert(
    fc.property(
      pairs.chain((ps) => fc.tuple(fc.constant(ps), textFor(ps))),
      ([ps, text]) => {
        const regex = buildMatcher(ps);
        const index = issuedMatcher(ps, MIN_SECRET_BYTES);
        if (!index) return assert.fail('no matcher for a non-empty set');
        assert.deepEqual(index.spans(text), regex.spans(text));
        assert.equal(index.test(text), regex.test(text));
        assert.equal(index.replace(text), regex.replace(text));
        assert.equal(index.replaceKeepingLines(text), regex.replaceKeepingLines(text));
        assert.equal(index.longest, regex.longest);
        assert.deepEqual([...index.labels].sort(), [...regex.labels].sort());
      },
    ),
    { numRuns: 500 },
  );
});

test('a set of configured values and issued tokens masks every whole occurrence of either, and follows tokens as they are issued and dropped', () => {
  const tokens = new Set<string>();
  let version = 0;
  const issued: SecretSource = {
    issued: true,
    version: () => version,
    entries: () => [...tokens].map((t) => ['AGENTTEAM_EXEC_TOKEN', t] as const),
  };
  const fixed: SecretSource = {
    version: () => 0,
    entries: () => [['API_KEY', 'sk-configured-value-1']],
  };
  const set = new SecretSet();
  set.add(fixed);
  set.add(issued);
  const tok = (i: number) => `eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ${i}.sig${'x'.repeat(i % 7)}`;
  for (let i = 0; i < 600; i++) tokens.add(tok(i));
  version++;
  const text = `a ${tok(5)} b sk-configured-value-1 c ${tok(599)}${tok(0)} d`;
  assert.equal(
    set.matcher().replace(text),
    'a [AGENTTEAM_EXEC_TOKEN] b [API_KEY] c [AGENTTEAM_EXEC_TOKEN][AGENTTEAM_EXEC_TOKEN] d',
  );
  const before = set.generation;
  tokens.delete(tok(5));
  assert.equal(set.generation, before, 'a dropped token alone rebuilds nothing');
  tokens.add(tok(1000));
  version++;
  assert.ok(set.generation > before, 'an issued token moves the generation');
  assert.equal(
    set.matcher().replace(tok(1000)),
    '[AGENTTEAM_EXEC_TOKEN]',
    'a new token is masked at once',
  );
  assert.equal(set.matcher().replace(tok(5)), tok(5), 'the rebuild leaves the dropped token out');
  assert.equal(set.matcher().replace(`${tok(6)}`), '[AGENTTEAM_EXEC_TOKEN]');
});
