import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { canonicalJson, toolFingerprint } from '../../catalog/tool-fingerprint.js';
import { STDIO_LIMITS, validateStdioTools } from '../../catalog/stdio-tools.js';
import { effectiveDescriptor } from '../../daemon/clienttools/wire-spelling.js';

/*
 * The descriptor fingerprint a saved delegated scope names, as properties:
 * object key order never matters (at any depth), array order always does,
 * the default timeout is part of the effective descriptor (so a tool that
 * spells the default out has the fingerprint of one that omits it), and the
 * canonical form reads back to the same value and fingerprint.
 */

/** `v` with every object's keys in another order (the values, recursively too). */
function reorder(v: unknown, rnd: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => reorder(x, rnd));
  if (v === null || typeof v !== 'object') return v;
  const entries = Object.entries(v as Record<string, unknown>);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return Object.fromEntries(entries.map(([k, x]) => [k, reorder(x, rnd)]));
}

const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const descriptor = fc
  .record({
    name: fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
    description: fc.string({ maxLength: 40 }),
    input_schema: fc
      .dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 5 })
      .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>),
    extra: json,
  })
  .map((d) => JSON.parse(JSON.stringify(d)) as Record<string, unknown>);

test('key order is irrelevant at every depth', () => {
  fc.assert(
    fc.property(descriptor, fc.array(fc.nat(999), { minLength: 1, maxLength: 32 }), (d, picks) => {
      let i = 0;
      const rnd = () => picks[i++ % picks.length]! / 1000;
      assert.equal(toolFingerprint(reorder(d, rnd) as never), toolFingerprint(d));
    }),
    { numRuns: 300 },
  );
});

test('array order is kept: two different elements swapped change the fingerprint', () => {
  fc.assert(
    fc.property(descriptor, json, json, (d, x, y) => {
      fc.pre(canonicalJson(x) !== canonicalJson(y));
      assert.notEqual(
        toolFingerprint({ ...d, list: [x, y] }),
        toolFingerprint({ ...d, list: [y, x] }),
      );
    }),
    { numRuns: 300 },
  );
});

test('round trip: the canonical form parses back to an equal value with the same fingerprint', () => {
  fc.assert(
    fc.property(descriptor, (d) => {
      const back = JSON.parse(canonicalJson(d)) as Record<string, unknown>;
      assert.deepEqual(back, d);
      assert.equal(toolFingerprint(back), toolFingerprint(d));
      assert.match(toolFingerprint(d), /^[0-9a-f]{64}$/);
    }),
    { numRuns: 300 },
  );
});

test('the default timeout is included: spelled out or omitted, one fingerprint; any other timeout, another', () => {
  const fingerprint = (tool: Record<string, unknown>) => {
    const checked = validateStdioTools([tool]);
    assert.ok(checked.ok, checked.ok ? '' : checked.message);
    const { timeout_ms, ...t } = checked.tools[0]!;
    return toolFingerprint(
      effectiveDescriptor({ ...t, timeoutMs: timeout_ms, relay: 'stdio' } as never),
    );
  };
  const schema = fc.constantFrom(
    { type: 'object' },
    { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
  );
  fc.assert(
    fc.property(
      fc.stringMatching(/^client__[a-z0-9_]{1,20}$/),
      fc.stringMatching(/^[A-Za-z][A-Za-z .]{0,39}$/),
      schema,
      fc.integer({ min: STDIO_LIMITS.min_timeout_ms, max: STDIO_LIMITS.max_timeout_ms }),
      (name, description, input_schema, other) => {
        fc.pre(other !== STDIO_LIMITS.default_timeout_ms);
        const omitted = fingerprint({ name, description, input_schema });
        const spelled = fingerprint({
          name,
          description,
          input_schema,
          timeout_ms: STDIO_LIMITS.default_timeout_ms,
        });
        assert.equal(spelled, omitted);
        assert.notEqual(
          fingerprint({ name, description, input_schema, timeout_ms: other }),
          omitted,
        );
      },
    ),
    { numRuns: 200 },
  );
});
