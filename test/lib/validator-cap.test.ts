import { test } from 'node:test';
import { createRequire } from 'node:module';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { defaultCatalog } from '../../catalog/catalog.js';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { loadInputValidator } from '../../lib/input-validators.js';
import { MATERIALIZED_ERRORS, capProcess } from '../../lib/validator-cap.js';

const requireHere = createRequire(import.meta.url);

type Validate = ((d: unknown) => boolean) & { errors?: unknown[] | null; errorCount?: number };

/** Inputs near each schema: its own example, mutated with extra, missing and wrongly typed fields, many of them. */
function inputsFor(example: Record<string, unknown>) {
  const value = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.constant(null),
    fc.boolean(),
    fc.array(fc.integer(), { maxLength: 3 }),
  );
  return fc
    .tuple(
      fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 200 }),
      fc.subarray(Object.keys(example)),
      // An example with no fields (workspace get: `{}`) has nothing to retype.
      Object.keys(example).length > 0
        ? fc.dictionary(fc.constantFrom(...Object.keys(example)), value, { maxKeys: 4 })
        : fc.constant({}),
    )
    .map(([extra, drop, retype]) => {
      const o: Record<string, unknown> = { ...example, ...extra, ...retype };
      for (const k of drop) delete o[k];
      return o;
    });
}

test('the capped validators give the same verdict and the same first errors as plain ajv, and the exact error count', async () => {
  const plain = new Ajv2020({ allErrors: true, strict: false });
  for (const { descriptor: d } of defaultCatalog().entries.values()) {
    const reference = plain.compile(d.input as object) as Validate;
    const check = await loadInputValidator(d.domain, d.action);
    assert.ok(check, `${d.domain} ${d.action}`);
    const gen = requireHere(
      new URL(`../../generated/validators/${d.domain}.${d.action}.cjs`, import.meta.url).pathname,
    ) as Validate;
    fc.assert(
      fc.property(inputsFor(d.example as Record<string, unknown>), (input) => {
        const want = reference(input);
        assert.equal(gen(input), want);
        if (want) return true;
        const all = reference.errors ?? [];
        assert.equal(gen.errorCount, all.length);
        assert.deepEqual(
          (gen.errors ?? []).slice(0, MATERIALIZED_ERRORS),
          all.slice(0, MATERIALIZED_ERRORS),
        );
        assert.ok((gen.errors ?? []).length <= MATERIALIZED_ERRORS);
        const r = check(input);
        assert.equal(r.ok, false);
        return true;
      }),
      { numRuns: 300 },
    );
  }
});

test('the MCP tool validators take the same rewrite at run time (ajv code.process)', () => {
  const { Ajv } = requireHere('ajv') as typeof import('ajv');
  const capped = new Ajv({ allErrors: true, strict: false, code: { process: capProcess } });
  const validate = capped.compile(MCP_TOOLS[0]!.inputSchema as object) as Validate;
  const input: Record<string, unknown> = { target: 'channel:x', content: 'c' };
  for (let i = 0; i < 1000; i++) input[`u${i}`] = i;
  assert.equal(validate(input), false);
  assert.equal(validate.errorCount, 1000);
  assert.equal(validate.errors?.length, MATERIALIZED_ERRORS);
});
