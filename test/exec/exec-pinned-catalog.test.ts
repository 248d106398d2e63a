import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { BUILTIN_ACTIONS, buildCatalog, type Inventory } from '../../catalog/index.js';
import inventoryJson from '../../catalog/agentteam-exec-action-inventory.json' with {
  type: 'json',
};
import { pinCatalog } from '../../daemon/auth/pinned-catalog.js';
import { startInProc } from '../../devkit/inproc.js';

// An authorization may call only the actions of the catalog snapshot it was
// pinned to at launch, even when the daemon has a handler for more.
test('an action missing from the pinned catalog is not_found for that authorization', async (t) => {
  const inventory = inventoryJson as Inventory;
  const narrow = buildCatalog(
    BUILTIN_ACTIONS.filter((d) => !(d.domain === 'task' && d.action === 'list')),
    {
      version: inventory.version,
      actions: inventory.actions.filter((r) => !(r.domain === 'task' && r.action === 'list')),
    },
  );
  const p = await startInProc(t, { catalog: () => pinCatalog(narrow) });
  const call = await p.runtime('s1', 'a1');

  const created = await call('task', 'create', { title: 'pinned' });
  assert.equal(created.status, 200);
  const listed = await call('task', 'list', {});
  assert.equal(listed.status, 404);
  const body = listed.json as { ok: boolean; error: { code: string } };
  assert.deepEqual([body.ok, body.error.code], [false, 'not_found']);
});
