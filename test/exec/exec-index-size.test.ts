import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { defaultCatalog } from '../../catalog/catalog.js';
import { helpIndexOf, renderExecIndex } from '../../catalog/help.js';

test('the mixed exec index (prompt summary and exec --help) stays under 2 KB with every domain', () => {
  const text = renderExecIndex(helpIndexOf(defaultCatalog()));
  const bytes = Buffer.byteLength(text, 'utf8');
  assert.ok(bytes < 2048, `the index is ${bytes} bytes`);
  for (const domain of Object.keys(defaultCatalog().domains))
    assert.ok(text.includes(`  ${domain} `), domain);
});
