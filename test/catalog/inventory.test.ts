import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BUILTIN_ACTIONS,
  BUILTIN_INVENTORY,
  buildCatalog,
  defaultCatalog,
} from '../../catalog/catalog.js';
import { inventoryOf } from '../../catalog/inventory.js';
import { committedArtifacts } from '../../scripts/gen/artifacts.js';
import { INVENTORY_FILE, renderInventory } from '../../scripts/gen/inventory.js';
import { ROOT } from '../../devkit/cli.js';

/**
 * The action inventory is written once, in the descriptors: the daemon
 * derives its rows from them and the published JSON is generated from the
 * same rows, so neither can drift from the other.
 */
test('the inventory JSON on disk is exactly what the generator renders from the descriptors', () => {
  const onDisk = readFileSync(join(ROOT, INVENTORY_FILE), 'utf8');
  assert.equal(onDisk, renderInventory(defaultCatalog()));
  assert.ok(
    committedArtifacts(defaultCatalog()).some(
      (a) => a.path === INVENTORY_FILE && a.content === onDisk,
    ),
  );
  assert.deepEqual(JSON.parse(onDisk), BUILTIN_INVENTORY);
});

test("each row carries its descriptor's own risk, result policy and receipt policy, in catalog order", () => {
  assert.equal(BUILTIN_INVENTORY.actions.length, BUILTIN_ACTIONS.length);
  BUILTIN_ACTIONS.forEach((d, i) => {
    const row = BUILTIN_INVENTORY.actions[i]!;
    assert.deepEqual([row.domain, row.action, row.risk], [d.domain, d.action, d.risk]);
    assert.equal(row.result, d.result);
    assert.equal(row.receipt, d.receipt);
    assert.equal(
      Object.hasOwn(row, 'receipt'),
      d.risk === 'side_effect',
      `${d.domain} ${d.action}`,
    );
  });
});

test('a changed policy in a descriptor changes the rendered JSON and nothing else', () => {
  const [first, ...rest] = BUILTIN_ACTIONS;
  const changed = { ...first!, result: { hint: 'A "quoted" hint, with a comma.' } };
  const catalog = buildCatalog([changed, ...rest], inventoryOf([changed, ...rest]));
  const text = renderInventory(catalog);
  const parsed = JSON.parse(text) as { actions: { result: unknown }[] };
  assert.deepEqual(parsed.actions[0]!.result, { hint: 'A "quoted" hint, with a comma.' });
  const before = renderInventory(defaultCatalog()).split('\n');
  const after = text.split('\n');
  assert.equal(after.length, before.length);
  assert.deepEqual(after.filter((l, i) => l !== before[i]).length, 1);
});
