import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon as startInProcess } from '../../daemon/server.js';
import { INVENTORY_BUDGET_BYTES } from '../../catalog/limits.js';
import { LIMITS } from '../../daemon/clienttools/types.js';
import { openLease } from '../../devkit/lease.js';
import { rpc } from '../../devkit/http.js';
import type { Daemon } from '../../devkit/daemon.js';
import { connectApp } from '../../devkit/client-tools.js';

/** A client tool whose tools/list entry is exactly `bytes` long (description and schema padded, each within its own limit). */
function toolOfEntryBytes(name: string, bytes: number) {
  const entry = (description: string, pad: number) => {
    const input_schema = {
      type: 'object',
      properties: { p: { type: 'string', description: 's'.repeat(pad) } },
    };
    return {
      tool: { name, description, input_schema, timeout_s: 30 },
      bytes: Buffer.byteLength(
        JSON.stringify({ name, description, inputSchema: input_schema, annotations: {} }),
      ),
      schema: Buffer.byteLength(JSON.stringify(input_schema)),
    };
  };
  const bare = entry('d', 0).bytes;
  const description = 'd'.repeat(Math.max(1, Math.min(LIMITS.descriptionBytes, bytes - bare + 1)));
  const e = entry(description, bytes - entry(description, 0).bytes);
  assert.equal(e.bytes, bytes, `cannot shape a ${bytes}-byte entry`);
  assert.ok(e.schema <= LIMITS.schemaBytes, `schema ${e.schema} bytes`);
  return e.tool;
}

/** Largest description and input schema the registration limits allow. */
const maximal = (name: string) =>
  toolOfEntryBytes(
    name,
    Buffer.byteLength(JSON.stringify({ name, description: '', inputSchema: {}, annotations: {} })) +
      LIMITS.descriptionBytes +
      LIMITS.schemaBytes -
      2,
  );

async function boot(t: { after(fn: () => unknown): void }) {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-budget-'));
  const daemon = await startInProcess({ home, log: () => undefined });
  const d: Daemon = {
    home,
    url: daemon.url,
    pid: process.pid,
    cli: async () => ({ code: 1, stdout: '', stderr: '' }),
    close: async () => undefined,
  };
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const lease = await openLease(d, { serverId: 'local', agentId: 'a1' });
  t.after(() => lease.close());
  /** The agent's tools/list result exactly as the daemon serialized it, and its bytes. */
  const list = async () => {
    const r = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
    });
    const result = JSON.stringify((JSON.parse(r.body) as { result: unknown }).result);
    return {
      bytes: Buffer.byteLength(result),
      names: (JSON.parse(result) as { tools: { name: string }[] }).tools.map((x) => x.name),
    };
  };
  return { d, list };
}

test('inventory budget: one app cannot make tools/list 654 KiB; 64 maximal tools are refused with inventory_too_large naming the budget', async (t) => {
  const { d, list } = await boot(t);
  const app = await connectApp(d);
  t.after(() => app.close());
  const before = await list();
  const tools = Array.from({ length: 64 }, (_, i) => maximal(`big_${i}`));
  const r = await app.register('huge', tools);
  assert.equal(r.status, 413, JSON.stringify(r.body).slice(0, 300));
  assert.equal(r.body.error.code, 'inventory_too_large');
  assert.match(
    r.body.error.message,
    new RegExp(`the inventory budget is ${INVENTORY_BUDGET_BYTES} bytes \\(128 KiB\\) per agent`),
  );
  assert.deepEqual(await list(), before, 'nothing was registered, not even the fallback tools');
  // The broker did not keep the group either: no tool of it is offered.
  const status = await app.call('GET', '/api/v1/status');
  assert.equal(status.body.data.clientTools.tools, 0);
});

test('inventory budget: a registration that brings tools/list to exactly the budget is accepted; one byte more is refused and changes nothing', async (t) => {
  const { d, list } = await boot(t);
  const app = await connectApp(d);
  t.after(() => app.close());
  // The first registration brings the fallback tools too; after it, the rest of the budget is known.
  assert.equal((await app.register('probe', [toolOfEntryBytes('probe_1', 200)])).status, 200);
  const base = await list();
  assert.ok(base.names.includes('app_tools') && base.names.includes('probe_1'));
  const rest = INVENTORY_BUDGET_BYTES - base.bytes;
  // Split the rest into entries of at most a maximal tool each (every entry also costs its comma).
  const per =
    Buffer.byteLength(
      JSON.stringify({ name: 'fill_00', description: '', inputSchema: {}, annotations: {} }),
    ) +
    LIMITS.descriptionBytes +
    LIMITS.schemaBytes -
    2;
  const k = Math.ceil(rest / (per + 1));
  const sizes = Array.from(
    { length: k },
    (_, i) => Math.floor(rest / k) - 1 + (i === k - 1 ? rest - k * Math.floor(rest / k) : 0),
  );
  const fill = sizes.map((n, i) => toolOfEntryBytes(`fill_${String(i).padStart(2, '0')}`, n));
  const at = await app.register('fill', fill);
  assert.equal(at.status, 200, JSON.stringify(at.body).slice(0, 300));
  const full = await list();
  assert.equal(full.bytes, INVENTORY_BUDGET_BYTES, 'tools/list is exactly at the budget');

  // One byte more in the same group: refused, and the group keeps its tools.
  const over = [
    ...fill.slice(0, -1),
    toolOfEntryBytes(`fill_${String(k - 1).padStart(2, '0')}`, sizes[k - 1]! + 1),
  ];
  const refused = await app.register('fill', over);
  assert.equal(refused.status, 413);
  assert.equal(refused.body.error.code, 'inventory_too_large');
  assert.match(
    refused.body.error.message,
    new RegExp(`tools/list ${INVENTORY_BUDGET_BYTES + 1} bytes`),
  );
  assert.deepEqual(await list(), full);
  // Another group, however small, is refused too; shrinking is always allowed.
  assert.equal(
    (await app.register('tiny', [toolOfEntryBytes('tiny_1', 200)])).body.error.code,
    'inventory_too_large',
  );
  assert.equal((await app.register('fill', fill.slice(1))).status, 200);
  assert.ok((await list()).bytes < INVENTORY_BUDGET_BYTES);
});
