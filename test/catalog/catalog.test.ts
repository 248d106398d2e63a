import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  BUILTIN_ACTIONS,
  buildCatalog,
  CatalogError,
  defaultCatalog,
} from '../../catalog/catalog.js';
import { errorEnvelopeSchema } from '../../catalog/envelope.js';
import type { Inventory } from '../../catalog/inventory.js';
import type { SchemaObject } from '../../catalog/descriptor.js';
import { helpIndexOf, INLINE_EXAMPLES } from '../../catalog/help.js';
import { standaloneSchema } from '../../catalog/schemas.js';
import { catalogView, catalogViewSchema } from '../../catalog/view.js';
import { loadInputValidator } from '../../lib/input-validators.js';
import { createValidator } from '../../lib/validator.js';
import inventoryJson from '../../catalog/agentteam-exec-action-inventory.json' with {
  type: 'json',
};

const inventory = inventoryJson as Inventory;
const catalog = defaultCatalog();

test('every schema compiles under ajv strict mode', () => {
  const ajv = createValidator();
  for (const d of BUILTIN_ACTIONS) {
    for (const kind of ['input', 'output'] as const) {
      assert.doesNotThrow(
        () => ajv.compile(d[kind] as SchemaObject),
        `${d.domain} ${d.action} ${kind}`,
      );
      // The standalone form (with $schema and $id) compiles as well.
      assert.doesNotThrow(
        () => createValidator().compile(standaloneSchema(d, kind)),
        `${d.domain} ${d.action} ${kind} standalone`,
      );
    }
  }
  assert.doesNotThrow(() => ajv.compile(errorEnvelopeSchema));
});

test('strict mode is really on: an unknown keyword fails to compile', () => {
  assert.throws(
    () =>
      createValidator().compile({
        type: 'object',
        additionalProperties: false,
        properties: {},
        frobnicate: 1,
      }),
    /unknown keyword/,
  );
});

test('every canonical example validates against its own input schema, with ajv and with the generated validator', async () => {
  const ajv = createValidator();
  for (const d of BUILTIN_ACTIONS) {
    const validate = ajv.compile(d.input as SchemaObject);
    assert.equal(
      validate(d.example),
      true,
      `${d.domain} ${d.action}: ${JSON.stringify(validate.errors)}`,
    );
    const check = await loadInputValidator(d.domain, d.action);
    assert.ok(check, `no generated validator for ${d.domain} ${d.action}`);
    assert.deepEqual(check(d.example), { ok: true });
  }
});

test('inputs are closed, lists are paged 1..100 default 20, mutations take idempotencyKey', () => {
  for (const d of BUILTIN_ACTIONS) {
    const input = d.input as {
      additionalProperties?: unknown;
      properties?: Record<string, SchemaObject>;
    };
    assert.equal(input.additionalProperties, false, `${d.domain} ${d.action}`);
    if (d.action === 'list') {
      assert.deepEqual(
        {
          min: input.properties?.limit?.minimum,
          max: input.properties?.limit?.maximum,
          def: input.properties?.limit?.default,
        },
        { min: 1, max: 100, def: 20 },
      );
      assert.ok(input.properties?.cursor, `${d.domain} list has a cursor`);
    }
    if (d.risk === 'side_effect')
      assert.ok(input.properties?.idempotencyKey, `${d.domain} ${d.action} idempotencyKey`);
  }
});

test('a fixture inventory missing a row makes construction throw naming the action', () => {
  const fixture: Inventory = {
    ...inventory,
    actions: inventory.actions.filter((r) => !(r.domain === 'review' && r.action === 'list')),
  };
  assert.throws(
    () => buildCatalog(BUILTIN_ACTIONS, fixture),
    (err: unknown) => {
      assert.ok(err instanceof CatalogError);
      assert.match(
        (err as CatalogError).message,
        /"review\/list" has no row in the action inventory/,
      );
      return true;
    },
  );
});

test('an inventory row naming no descriptor makes construction throw naming it', () => {
  const extra = {
    domain: 'task',
    action: 'delete',
    risk: 'side_effect' as const,
    result: { hint: 'h', next: { action: 'task get', input: {} } },
  };
  const fixture: Inventory = { ...inventory, actions: [...inventory.actions, extra] };
  assert.throws(() => buildCatalog(BUILTIN_ACTIONS, fixture), /"task\/delete" names no action/);
});

test('a duplicate descriptor or a risk that disagrees with the inventory is rejected', () => {
  const first = BUILTIN_ACTIONS[0]!;
  assert.throws(
    () => buildCatalog([...BUILTIN_ACTIONS, first], inventory),
    new RegExp(`"${first.domain}/${first.action}" is declared twice`),
  );
  const flipped = inventory.actions.map((r) =>
    r.domain === 'team' && r.action === 'get' ? { ...r, risk: 'side_effect' as const } : r,
  );
  assert.throws(
    () => buildCatalog(BUILTIN_ACTIONS, { ...inventory, actions: flipped }),
    /"team\/get" has risk "read"/,
  );
});

test('the help index says an input may be omitted exactly when the schema accepts {}', async () => {
  for (const d of helpIndexOf(catalog).domains) {
    for (const a of d.actions) {
      const check = await loadInputValidator(d.domain, a.action);
      assert.ok(check, `${d.domain} ${a.action}`);
      assert.equal(check({}).ok, a.acceptsEmpty, `${d.domain} ${a.action}`);
    }
  }
});

test('the inline examples of the mixed index name real actions', () => {
  for (const key of INLINE_EXAMPLES) assert.ok(catalog.entries.has(key), key);
});

test('the catalog view carries every action with its schemas and matches its own JSON Schema', () => {
  const view = catalogView(catalog);
  assert.equal(view.actions.length, catalog.entries.size);
  for (const a of view.actions)
    assert.deepEqual(a.inputSchema, catalog.get(a.domain, a.action)?.descriptor.input);
  const validate = createValidator().compile(catalogViewSchema);
  assert.equal(validate(JSON.parse(JSON.stringify(view))), true, JSON.stringify(validate.errors));
});
