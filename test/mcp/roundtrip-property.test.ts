import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { startInProc } from '../../devkit/inproc.js';
import { inProcessFields } from '../../devkit/roundtrip-fields.js';
import { acceptable, assertProperty, RUNS, stringsFor } from '../../devkit/roundtrip.js';

/**
 * Round trip of every stored string field: strings over the whole Unicode
 * range (lone surrogates, NUL and other controls, U+2028, noncharacters,
 * astral code points), sent as JSON text with and without \u escapes. What
 * the validator accepts must read back identical, code unit for code unit;
 * what it refuses must name the field's path and leave nothing behind; and
 * the verdict must be exactly what the field's limits say. The bulk runs
 * in-process (the daemon's JSON decoder, the generated validators, the store,
 * the MCP tool host); a share runs through the real daemon routes.
 */

test(`round trip in-process: ${RUNS} generated strings per stored field (a quarter for profile.json fields), accepted exactly as the limits say and read back identical`, async (t) => {
  const { fields, close } = await inProcessFields(t, startInProc);
  t.after(close);
  for (const f of fields) {
    let accepted = 0;
    let refused = 0;
    const started = performance.now();
    await assertProperty(
      f.name,
      fc.asyncProperty(stringsFor(f.rule), fc.boolean(), async (s, escaped) => {
        const before = f.count();
        const ok = await f.run(s, escaped);
        assert.equal(
          ok,
          acceptable(s, f.rule) && (f.meaningful?.(s) ?? true),
          `${f.name}: verdict for ${JSON.stringify(s).slice(0, 80)}`,
        );
        if (ok) accepted++;
        else {
          refused++;
          assert.equal(f.count(), before, `${f.name}: a refused input left a row`);
        }
      }),
      f.runs ?? RUNS,
    );
    if (process.env.AGENTTEAM_PROPERTY_TIMING)
      process.stderr.write(`${f.name}: ${Math.round(performance.now() - started)} ms\n`);
    // Both outcomes were exercised, not just one.
    assert.ok(
      accepted > (f.runs ?? RUNS) / 10 && refused > (f.runs ?? RUNS) / 10,
      `${f.name}: ${accepted} accepted, ${refused} refused`,
    );
  }
});
