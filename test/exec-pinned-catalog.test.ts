import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_ACTIONS, buildCatalog, type Inventory } from '../catalog/index.js';
import inventoryJson from '../catalog/agentteam-exec-action-inventory.json' with { type: 'json' };
import { AuthorizationStore } from '../daemon/auth/store.js';
import { createJoseSigner } from '../daemon/auth/signer.js';
import { fsTokenWriter } from '../daemon/auth/token-file.js';
import { removeDir } from '../daemon/auth/private-dir.js';
import { pinCatalog } from '../daemon/auth/pinned-catalog.js';
import { buildApp } from '../daemon/app.js';
import { registerExecActionRoute } from '../daemon/exec/route.js';
import { openServices } from '../daemon/services.js';
import { systemClock } from '../lib/clock.js';

// An authorization may call only the actions of the catalog snapshot it was
// pinned to at launch, even when the daemon has a handler for more.
test('an action missing from the pinned catalog is not_found for that authorization', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-pinned-'));
  const services = await openServices({ home, clock: systemClock });
  const inventory = inventoryJson as Inventory;
  const narrow = buildCatalog(
    BUILTIN_ACTIONS.filter((d) => !(d.domain === 'task' && d.action === 'list')),
    { version: inventory.version, actions: inventory.actions.filter((r) => !(r.domain === 'task' && r.action === 'list')) },
  );
  const store = new AuthorizationStore({
    clock: systemClock,
    signer: createJoseSigner(systemClock, 12 * 3600),
    writer: fsTokenWriter,
    remover: removeDir,
    runtimeDir: join(home, 'runtime'),
    catalog: () => pinCatalog(narrow),
  });
  t.after(async () => {
    await store.shutdown();
    await services.close();
    rmSync(home, { recursive: true, force: true });
  });
  const app = buildApp({
    store,
    operatorToken: 'unused',
    listenHost: '127.0.0.1',
    port: () => 80,
    gate: services.gate,
    diag: () => {},
    status: () => ({}),
    stop: () => {},
    reload: async () => ({}),
    urls: () => ({ execBaseUrl: '', mcpUrl: '' }),
    extraRoutes: (a) => registerExecActionRoute(a, services),
  });
  const auth = await store.create({ serverId: 's1', agentId: 'a1', ttlMs: 60_000 });
  const token = readFileSync(auth.tokenFile, 'utf8').trim();
  const call = (action: string, body: unknown) =>
    app.request(`/api/internal/exec/servers/s1/agents/a1/task/${action}`, {
      method: 'POST',
      headers: { host: '127.0.0.1:80', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  const created = await call('create', { title: 'pinned' });
  assert.equal(created.status, 200);
  const listed = await call('list', {});
  assert.equal(listed.status, 404);
  const body = (await listed.json()) as { ok: boolean; error: { code: string } };
  assert.deepEqual([body.ok, body.error.code], [false, 'not_found']);
});
