import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { checkDeclaration, pointerOfPath } from '../../catalog/tool-declaration.js';
import { DECLARATION_SCHEMA } from '../../catalog/tool-declaration-schema.js';
import { buildMatcher } from '../../daemon/masking/secrets.js';
import { lineMasker } from '../../daemon/masking/stream.js';

/**
 * The published declaration schema and the hand-written checker agree: the
 * examples pass both; each kind of bad document fails both. Plus the
 * line-oriented stream masker sees a secret split across chunks.
 */
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile(DECLARATION_SCHEMA);
const EXAMPLES = fileURLToPath(new URL('../../../examples/tools/', import.meta.url));
const none = { type: 'object', properties: {} };
const good = {
  name: 'ok',
  description: 'd',
  needs: none,
  transport: { type: 'command', argv: ['git'] },
};

test('every example declaration validates against the published schema and the checker', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 3);
  for (const f of files) {
    const doc = JSON.parse(readFileSync(EXAMPLES + f, 'utf8')) as unknown;
    assert.ok(validate(doc), `${f}: ${JSON.stringify(validate.errors)}`);
    const c = checkDeclaration(doc);
    assert.ok(c.ok, `${f}: ${JSON.stringify(!c.ok && c.problems)}`);
  }
});

test('bad documents fail both the schema and the checker, the checker with a pointer', () => {
  const bad: [unknown, string][] = [
    [{ ...good, extra: 1 }, '/extra'],
    [{ ...good, name: 'has space' }, '/name'],
    [{ ...good, description: undefined }, '/description'],
    [{ ...good, transport: { type: 'command', argv: [] } }, '/transport/argv'],
    [
      { ...good, transport: { type: 'command', argv: ['x'], timeoutMs: 50 } },
      '/transport/timeoutMs',
    ],
    [
      { ...good, transport: { type: 'command', argv: ['x'], outputBytes: 10 } },
      '/transport/outputBytes',
    ],
    [{ ...good, transport: { type: 'command', argv: ['x'], shell: true } }, '/transport/shell'],
    [{ ...good, transport: { type: 'smoke', argv: ['x'] } }, '/transport/type'],
    [{ ...good, annotations: { readOnlyHint: 'yes' } }, '/annotations/readOnlyHint'],
    [
      { ...good, transport: { type: 'builtin', tool: 'message_send', argv: [] } },
      '/transport/argv',
    ],
  ];
  for (const [doc, pointer] of bad) {
    const clean = JSON.parse(JSON.stringify(doc)) as unknown;
    assert.equal(validate(clean), false, `schema accepted ${JSON.stringify(clean)}`);
    const c = checkDeclaration(clean);
    assert.equal(c.ok, false, `checker accepted ${JSON.stringify(clean)}`);
    assert.ok(
      !c.ok && c.problems.some((p) => p.pointer === pointer),
      `${pointer}: ${JSON.stringify(!c.ok && c.problems)}`,
    );
  }
  // What only the checker can see: needs outside the subset, placeholders naming nothing.
  const subset = checkDeclaration({
    ...good,
    needs: { type: 'object', properties: { a: { $ref: '#/x' } } },
  });
  assert.ok(!subset.ok && subset.problems[0]!.pointer === '/needs/properties/a/$ref');
  const ph = checkDeclaration({
    ...good,
    transport: { type: 'command', argv: ['x', '--{missing}'] },
  });
  assert.ok(!ph.ok && ph.problems[0]!.pointer === '/transport/argv/1');
  assert.equal(pointerOfPath('$.properties["a/b"].items[2]'), '/properties/a~1b/items/2');
});

test('the stream masker catches a secret split across chunks', async () => {
  const m = buildMatcher([['API_TOKEN', 'correct-horse-battery']]);
  const enc = new TextEncoder();
  const parts = [
    'data: {"x":"correct-ho',
    'rse-battery"}\n',
    '\ndata: tail correct-horse-',
    'battery',
  ];
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(enc.encode(p));
      c.close();
    },
  }).pipeThrough(lineMasker(() => m));
  const out = await new Response(stream).text();
  assert.equal(out, 'data: {"x":"[API_TOKEN]"}\n\ndata: tail [API_TOKEN]');
});
