import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCatalog } from '../../catalog/catalog.js';
import { LIMITS } from '../../catalog/limits.js';
import { buildArtifacts, committedArtifacts } from '../../scripts/gen/artifacts.js';
import { createValidator } from '../../lib/validator.js';
import { detailsOf, loadInputValidator, toInputCheck } from '../../lib/input-validators.js';
import { catalogViewSchema } from '../../catalog/view.js';
import { ROOT } from '../../devkit/cli.js';

const catalog = defaultCatalog();

test('committed generated files are not stale (run `npm run build` and commit specs/ when this fails)', () => {
  const artifacts = committedArtifacts(catalog);
  assert.ok(artifacts.length > 0);
  for (const a of artifacts) {
    assert.equal(readFileSync(join(ROOT, a.path), 'utf8'), a.content, `${a.path} is stale`);
  }
});

test('the build wrote every dist artifact exactly as the generator renders it', () => {
  for (const a of buildArtifacts(catalog)) {
    assert.equal(readFileSync(join(ROOT, a.path), 'utf8'), a.content, a.path);
  }
});

test('generated validators are CommonJS and require nothing but ajv runtime helpers (none today: ucs2length is inlined)', () => {
  const validators = buildArtifacts(catalog).filter((x) => x.path.includes('/validators/'));
  assert.ok(validators.length > 0);
  for (const a of validators) {
    assert.match(a.path, /\.cjs$/, a.path);
    assert.match(a.content, /module\.exports = validate/, a.path);
    assert.doesNotMatch(a.content, /\brequire\((?!"ajv\/dist\/runtime\/)/, a.path);
    assert.doesNotMatch(a.content, /\bimport\b|\bexport\b/, a.path);
  }
  assert.ok(validators.every((a) => !/\brequire\(/.test(a.content)));
});

test('the generated validator and a freshly compiled ajv validator agree', async () => {
  const ajv = createValidator();
  for (const { descriptor: d } of catalog.entries.values()) {
    const fresh = toInputCheck(ajv.compile(d.input as object));
    const generated = await loadInputValidator(d.domain, d.action);
    assert.ok(generated);
    const ex = d.example as Record<string, unknown>;
    const samples: unknown[] = [
      d.example,
      {},
      [],
      null,
      'x',
      { ...ex, unknownField: 1 },
      { ...ex, limit: 0 },
      { ...ex, id: 'x'.repeat(65) },
    ];
    for (const s of samples)
      assert.deepEqual(generated(s), fresh(s), `${d.domain} ${d.action} ${JSON.stringify(s)}`);
  }
});

test('maxLength counts characters, not UTF-16 units (the inlined ucs2length helper works)', async () => {
  const check = await loadInputValidator('task', 'create');
  assert.ok(check);
  assert.deepEqual(check({ title: '\u{1F600}'.repeat(LIMITS.taskTitle.chars) }), { ok: true });
  assert.equal(check({ title: '\u{1F600}'.repeat(LIMITS.taskTitle.chars + 1) }).ok, false);
});

test('an unknown or malformed action name loads no validator', async () => {
  assert.equal(await loadInputValidator('task', 'delete'), undefined);
  assert.equal(await loadInputValidator('..', 'x'), undefined);
  assert.equal(await loadInputValidator('task/../../x', 'y'), undefined);
});

test('details name the JSON pointer of each bad field, escaping ~ and /', () => {
  const { details } = detailsOf([
    { instancePath: '', keyword: 'required', params: { missingProperty: 'title' } },
    { instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'a/b~c' } },
    {
      instancePath: '/limit',
      keyword: 'maximum',
      params: { limit: 100 },
      message: 'must be <= 100',
    },
  ]);
  assert.deepEqual(details, [
    { path: '/title', message: 'is required' },
    { path: '/a~1b~0c', message: 'is not a known field' },
    { path: '/limit', message: 'must be <= 100' },
  ]);
});

test('the OpenAPI document covers the catalog route and every action, and every $ref resolves', () => {
  const doc = JSON.parse(readFileSync(join(ROOT, 'specs/openapi.json'), 'utf8')) as {
    openapi: string;
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { example: unknown }> } }>
    >;
    components: {
      schemas: Record<string, unknown>;
      securitySchemes: Record<string, { scheme: string }>;
    };
  };
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(doc.paths['/catalog']?.get);
  assert.equal(doc.components.securitySchemes.runtimeToken?.scheme, 'bearer');
  for (const { descriptor: d } of catalog.entries.values()) {
    const op = doc.paths[`/${d.domain}/${d.action}`]?.post;
    assert.ok(op, `${d.domain} ${d.action}`);
    assert.deepEqual(op.requestBody?.content['application/json']?.example, d.example);
  }
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
    (m) => m[1]!,
  );
  assert.ok(refs.length > catalog.entries.size);
  for (const r of refs) assert.ok(doc.components.schemas[r], `dangling $ref ${r}`);
});

test("the daemon's catalog route body matches the CatalogView schema the OpenAPI document publishes", async () => {
  // The route serializes the pinned catalog once (daemon/auth/pinned-catalog.ts); check those very bytes.
  const { pinCatalog } = await import('../../daemon/auth/pinned-catalog.js');
  const body = JSON.parse(pinCatalog(catalog).body) as { ok: boolean; data: unknown };
  assert.equal(body.ok, true);
  const validate = createValidator().compile(catalogViewSchema);
  assert.equal(validate(body.data), true, JSON.stringify(validate.errors));
});
