import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { buildCatalog, BUILTIN_ACTIONS, defaultCatalog } from '../../catalog/catalog.js';
import { taskGet } from '../../catalog/domains/task.js';
import { defineAction } from '../../catalog/descriptor.js';
import type { Inventory } from '../../catalog/inventory.js';
import { Registry, RegistryError } from '../../daemon/exec/registry.js';
import inventory from '../../catalog/agentteam-exec-action-inventory.json' with { type: 'json' };
import { builtinRegistry } from '../../daemon/exec/builtin.js';

test('every built-in catalog action has exactly one handler', () => {
  const r = builtinRegistry(defaultCatalog());
  for (const key of defaultCatalog().entries.keys()) {
    const [domain = '', action = ''] = key.split('/');
    assert.ok(r.get(domain, action), key);
  }
  assert.equal(r.get('task', 'delete'), undefined);
});

test('a duplicate handler fails at registration', () => {
  const r = new Registry(defaultCatalog());
  r.registerJSON(taskGet, async () => {
    throw new Error('unused');
  });
  assert.throws(
    () =>
      r.registerJSON(taskGet, async () => {
        throw new Error('unused');
      }),
    RegistryError,
  );
});

test('a descriptor without a handler fails at seal (start-up)', () => {
  const r = new Registry(defaultCatalog());
  r.registerJSON(taskGet, async () => {
    throw new Error('unused');
  });
  assert.throws(() => r.seal(), /no handler registered for .*"task\/create"/);
});

test('a handler without a descriptor in the catalog fails at registration', () => {
  const stray = defineAction({
    domain: 'task',
    action: 'archive',
    summary: 's',
    help: 'h',
    example: {},
    risk: 'read',
    input: { type: 'object' },
    output: { type: 'object' },
  });
  const r = new Registry(defaultCatalog());
  assert.throws(() => r.registerJSON(stray, async () => ({})), /no descriptor/);
  // A catalog built without task get: registering its handler is refused too.
  const rows = (inventory as Inventory).actions.filter(
    (a) => !(a.domain === 'task' && a.action === 'get'),
  );
  const smaller = buildCatalog(
    BUILTIN_ACTIONS.filter((d) => d !== taskGet),
    { version: 1, actions: rows },
  );
  assert.throws(() => builtinRegistry(smaller), /no descriptor/);
});

test('validation reports JSON-pointer paths', () => {
  const r = builtinRegistry(defaultCatalog());
  const create = r.get('task', 'create')!;
  const res = create.check({ title: '', bogus: 1, status: 'nope' });
  assert.equal(res.ok, false);
  const paths = res.ok ? [] : res.details.map((d) => d.path).sort();
  assert.deepEqual(paths, ['/bogus', '/status', '/title']);
  const missing = create.check({});
  assert.deepEqual(missing.ok ? [] : missing.details.map((d) => d.path), ['/title']);
  assert.equal(create.check({ title: 'x' }).ok, true);
});

test('the build generated a standalone validator for every action, and it agrees with the fallback', async () => {
  const fallback = builtinRegistry(defaultCatalog());
  const generated = builtinRegistry(defaultCatalog());
  assert.deepEqual(await generated.useGeneratedValidators(), []);
  const cases: [string, string, unknown][] = [
    ['task', 'create', { title: '', bogus: 1 }],
    ['task', 'update', { id: 'bad id' }],
    ['review', 'add', { taskId: 'task_abcdef', verdict: 'meh', body: 'x' }],
    ['agent', 'list', { limit: 0 }],
    ['task', 'list', { status: 'todo', limit: 5 }],
  ];
  for (const [d, a, input] of cases)
    assert.deepEqual(
      generated.get(d, a)!.check(input),
      fallback.get(d, a)!.check(input),
      `${d} ${a}`,
    );
});

test('openServices refuses to start when the catalog has an action without a handler, before touching the store', async () => {
  const { mkdtempSync, existsSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openServices } = await import('../../daemon/services.js');
  const { daemonSecrets } = await import('../../daemon/masking/sources.js');
  const { systemClock } = await import('../../lib/clock.js');
  const extra = defineAction({
    domain: 'task',
    action: 'archive',
    summary: 's',
    help: 'h',
    example: {},
    risk: 'read',
    input: { type: 'object' },
    output: { type: 'object' },
  });
  const row = {
    domain: 'task',
    action: 'archive',
    risk: 'read' as const,
    result: { hint: 'h', next: { action: 'task list', input: {} } },
  };
  const bigger = buildCatalog([...BUILTIN_ACTIONS, extra], {
    version: 1,
    actions: [...(inventory as Inventory).actions, row],
  });
  const home = mkdtempSync(join(tmpdir(), 'agentteam-services-'));
  try {
    await assert.rejects(
      openServices({ home, clock: systemClock, catalog: bigger, secrets: daemonSecrets() }),
      /no handler registered for "task\/archive"/,
    );
    assert.equal(existsSync(join(home, 'store.db')), false);
    const ok = await openServices({ home, clock: systemClock, secrets: daemonSecrets() });
    assert.ok(ok.registry.get('task', 'create'));
    await ok.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
