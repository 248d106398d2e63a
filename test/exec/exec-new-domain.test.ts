import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_DOMAINS, catalogOf } from '../../catalog/catalog.js';
import { builtinRegistry } from '../../daemon/exec/builtin.js';
import type { HandlerContext } from '../../daemon/exec/context.js';
import { RegistryError } from '../../daemon/exec/registry.js';
import { openDb } from '../../daemon/store/db.js';
import { STORE_DOMAINS, STORE_MIGRATIONS } from '../../daemon/domains/list.js';
import { SqliteSql } from '../../daemon/store/sqlite-sql.js';
import { TeamServer } from '../../daemon/store/team-server.js';
import { noteCatalog } from '../fixtures/note-domain/catalog.js';
import { noteStore } from '../fixtures/note-domain/store.js';

/*
 * A new Exec domain is its catalog file and its store file, plus one line in
 * BUILTIN_DOMAINS (catalog/catalog.ts) and one in STORE_DOMAINS
 * (daemon/domains/list.ts). The fixture's two files stand in for a real
 * domain; the lists here are the real ones with that one line added.
 */
const catalogList = [...BUILTIN_DOMAINS, noteCatalog];
const storeList = [...STORE_DOMAINS, noteStore];

async function openServer(dir: string) {
  const path = join(dir, 'store.db');
  // The schema history a daemon would run with the domain listed: the domain's migration appended.
  const db = openDb(path, [
    ...STORE_MIGRATIONS,
    ...storeList.slice(STORE_DOMAINS.length).flatMap((d) => d.migrations),
  ]);
  const server = await TeamServer.open(new SqliteSql(db, path), () => 1_700_000_000_000, storeList);
  return { db, server };
}

test('a fixture domain listed once in each list is validated and served through the Exec registry', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-note-'));
  const { db, server } = await openServer(dir);
  try {
    const registry = builtinRegistry(catalogOf(catalogList), storeList);
    const add = registry.get('note', 'add');
    const list = registry.get('note', 'list');
    assert.ok(add && list);
    const ctx = {
      principal: { serverId: 's1', agentId: 'a1' },
      signal: new AbortController().signal,
      server: server.forCaller({ serverId: 's1', agentId: 'a1' }),
    } as unknown as HandlerContext;
    // Validation comes from the descriptor, before the handler.
    assert.equal(add.check({}).ok, false);
    assert.equal(add.check({ text: 'hi', stray: 1 }).ok, false);
    assert.equal(add.check({ text: 'hi' }).ok, true);
    const added = (await add.handler({ text: 'hi', idempotencyKey: 'k1' }, ctx)) as {
      note: { id: string; author: string };
    };
    assert.equal(added.note.author, 'a1');
    // The domain's idempotency comes with the store: the same key replays.
    assert.deepEqual(await add.handler({ text: 'hi', idempotencyKey: 'k1' }, ctx), added);
    const page = (await list.handler({}, ctx)) as { notes: { id: string }[]; hasMore: boolean };
    assert.deepEqual(
      page.notes.map((n) => n.id),
      [added.note.id],
    );
    assert.equal(page.hasMore, false);
    // The built-ins are still served beside it.
    assert.ok(registry.get('task', 'create'));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a domain missing from either list, or listed twice, stops the start', async () => {
  // Store line without the catalog line: the handler has no descriptor.
  assert.throws(() => builtinRegistry(catalogOf(BUILTIN_DOMAINS), storeList), RegistryError);
  assert.throws(() => builtinRegistry(catalogOf(BUILTIN_DOMAINS), storeList), /no descriptor/);
  // Catalog line without the store line: a catalog action has no handler.
  assert.throws(
    () => builtinRegistry(catalogOf(catalogList), STORE_DOMAINS),
    /no handler registered for "note\/add", "note\/list"/,
  );
  // Listed twice: two handlers for one action, in the registry and in the team server.
  assert.throws(
    () => builtinRegistry(catalogOf(catalogList), [...storeList, noteStore]),
    /two handlers/,
  );
  const dir = mkdtempSync(join(tmpdir(), 'at-note-'));
  const path = join(dir, 'store.db');
  const db = openDb(path, STORE_MIGRATIONS);
  try {
    await assert.rejects(
      TeamServer.open(new SqliteSql(db, path), Date.now, [
        ...STORE_DOMAINS,
        ...STORE_DOMAINS.slice(0, 1),
      ]),
      /action "task\/create" is implemented twice/,
    );
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
