import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createValidator } from '../../lib/validator.js';
import { MATERIALIZED_ERRORS } from '../../lib/validator-cap.js';
import { MAX_DETAILS } from '../../catalog/error-limits.js';
import { connectAgent } from '../../devkit/client-tools.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * The one ajv factory (lib/validator.ts): its dialect, its vocabulary, its
 * bound on error objects, the two per-use options; that nothing else in the
 * shipped code makes an ajv instance; and a declared tool's schema naming
 * either dialect loads, with an exact count of the problems it reports.
 */
type Counted = ((d: unknown) => boolean) & { errors?: unknown[] | null; errorCount?: number };

test('the dialect is JSON Schema 2020-12: prefixItems holds, a 2020-12 $schema compiles, a draft-07 one does not', () => {
  const ajv = createValidator();
  const pair = ajv.compile({
    type: 'array',
    prefixItems: [{ type: 'string' }, { type: 'integer' }],
    minItems: 2,
    items: false,
  });
  assert.equal(pair(['a', 1]), true);
  assert.equal(pair([1, 'a']), false);
  assert.equal(pair(['a', 1, 2]), false);
  assert.equal(
    ajv.compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' })({}),
    true,
  );
  assert.throws(
    () =>
      createValidator().compile({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
      }),
    /no schema with key or ref/,
  );
});

test('project schemas are strict: an unknown keyword or a required name not under properties fails to compile', () => {
  assert.throws(
    () => createValidator().compile({ type: 'object', frobnicate: 1 }),
    /unknown keyword/,
  );
  assert.throws(
    () => createValidator().compile({ type: 'object', required: ['a'] }),
    /required property "a" is not defined/,
  );
});

test('x-maxJsonBytes counts UTF-8 bytes as JSON writes them: at the limit passes, one past fails', () => {
  const v = createValidator().compile({ type: 'string', 'x-maxJsonBytes': 6 }) as Counted;
  assert.equal(v('ééé'), true); // 6 bytes
  assert.equal(v('éééa'), false); // 7 bytes
  assert.equal(v('a"b"'), true); // 4 characters, 6 bytes as JSON
  assert.equal(v('a"b"c'), false);
});

test('every instance is bounded: past the cap errors are only counted, and the verdict and the count stay exact', () => {
  for (const opts of [
    {},
    { foreign: true },
    { foreign: true, useDefaults: true },
    { standalone: true },
  ]) {
    const v = createValidator(opts).compile({
      type: 'object',
      additionalProperties: false,
      properties: {},
    }) as Counted;
    const input = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i]));
    assert.equal(v(input), false);
    assert.equal(v.errors?.length, MATERIALIZED_ERRORS, JSON.stringify(opts));
    assert.equal(v.errorCount, 200);
    assert.equal(v({}), true);
  }
});

test('foreign schemas: no strict checks, draft-07 or 2020-12 named in $schema, defaults filled when asked', () => {
  const loose = { type: 'object', required: ['a'], properties: { n: { minimum: 1 } } };
  assert.doesNotThrow(() => createValidator({ foreign: true }).compile(loose));
  for (const $schema of [
    'http://json-schema.org/draft-07/schema#',
    'https://json-schema.org/draft/2020-12/schema',
  ]) {
    const v = createValidator({ foreign: true }).compile({
      $schema,
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    assert.equal(v({ a: 'x' }), true, $schema);
    assert.equal(v({ a: 1 }), false, $schema);
  }
  const withDefault = { type: 'object', properties: { mode: { type: 'string', default: 'fast' } } };
  const filled: Record<string, unknown> = {};
  assert.equal(
    createValidator({ foreign: true, useDefaults: true }).compile(withDefault)(filled),
    true,
  );
  assert.deepEqual(filled, { mode: 'fast' });
  const untouched: Record<string, unknown> = {};
  createValidator({ foreign: true }).compile(withDefault)(untouched);
  assert.deepEqual(untouched, {});
});

/** Every compiled .js file under dist/<dir>. */
function jsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...jsFiles(p));
    else if (name.endsWith('.js')) out.push(p);
  }
  return out;
}

test('no shipped module but lib/validator.js makes an ajv instance or imports an ajv class', () => {
  const dist = fileURLToPath(new URL('../../', import.meta.url));
  const makers: string[] = [];
  for (const dir of ['lib', 'catalog', 'cli', 'daemon', 'scripts']) {
    for (const f of jsFiles(join(dist, dir))) {
      const src = readFileSync(f, 'utf8');
      // Type-only imports are gone from the compiled code; what is left is a value import.
      if (/\bnew Ajv\w*\(|from\s*['"]ajv(?:\/dist\/(?:2019|2020|jtd|core)(?:\.js)?)?['"]/.test(src))
        makers.push(relative(dist, f));
    }
  }
  assert.deepEqual(makers, ['lib/validator.js']);
});

test('a declared tool whose needs names either dialect loads; an input with 100 problems reports the exact count', async (t) => {
  const NODE = process.execPath;
  const tool = (name: string, $schema: string) => ({
    name,
    description: `test tool ${name}`,
    needs: {
      $schema,
      type: 'object',
      additionalProperties: false,
      properties: { text: { type: 'string' } },
    },
    annotations: { readOnlyHint: true },
    transport: { type: 'command', argv: [NODE, '-e', 'process.stdout.write("fine")'] },
  });
  const h = await prepareHome(t, {
    tools: {
      'draft7.json': tool('draft_seven', 'http://json-schema.org/draft-07/schema#'),
      'draft2020.json': tool('draft_twenty', 'https://json-schema.org/draft/2020-12/schema'),
    },
  });
  const list = await h.cli(['tools', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^draft_seven\s+declared/m);
  assert.match(list.stdout, /^draft_twenty\s+declared/m);
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());
  const text = (r: any) => (r.content as { text: string }[]).map((c) => c.text).join('');
  for (const name of ['draft_seven', 'draft_twenty']) {
    const ok = await agent.client.callTool({ name, arguments: { text: 'hi' } });
    assert.equal(text(ok), 'fine');
    const args = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`extra${i}`, i]));
    const bad = await agent.client.callTool({ name, arguments: args });
    assert.equal(bad.isError, true);
    const error = (
      JSON.parse(text(bad)) as {
        error: { code: string; details: unknown[]; detailsOmitted: number };
      }
    ).error;
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.details.length, MAX_DETAILS);
    assert.equal(error.details.length + error.detailsOmitted, 100);
  }
});
