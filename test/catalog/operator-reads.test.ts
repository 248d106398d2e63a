import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { defaultCatalog } from '../../catalog/catalog.js';
import { OPERATOR_READS, operatorReadOf, readCommandSpecs } from '../../catalog/operator-reads.js';
import { callRisk } from '../../catalog/descriptor.js';

const catalog = defaultCatalog();

test("every operator read is a catalog read, and its command is declared from the action's input schema", () => {
  const specs = readCommandSpecs(catalog);
  assert.equal(specs.length, OPERATOR_READS.length);
  for (const s of specs) {
    const d = catalog.get(s.domain, s.action)!.descriptor;
    assert.equal(callRisk(d, s.op ? { op: s.op } : {}), 'read', s.command.join(' '));
    const props = (d.input as { properties: Record<string, { enum?: string[] }> }).properties;
    for (const f of [...s.args, ...s.options]) {
      assert.ok(props[f.name], `${s.command.join(' ')}: ${f.name}`);
      assert.deepEqual(f.choices, props[f.name]!.enum, f.name);
      assert.ok(!['idempotencyKey', 'requestId', 'op'].includes(f.name));
    }
  }
  const list = specs.find((s) => s.command.join(' ') === 'task list')!;
  assert.deepEqual(
    list.options.map((o) => o.flag),
    ['--status', '--assignee', '--project-id', '--limit', '--cursor'],
  );
  assert.deepEqual(
    specs.find((s) => s.command.join(' ') === 'task get')!.args.map((a) => a.name),
    ['id'],
  );
  assert.deepEqual(
    specs.find((s) => s.command.join(' ') === 'workflow run show')!.args.map((a) => a.name),
    ['id'],
  );
});

test('an action with a side effect, an unknown field or an unknown action cannot become an operator read', () => {
  assert.throws(
    () =>
      readCommandSpecs(catalog, [
        { command: ['task', 'create'], domain: 'task', action: 'create' },
      ]),
    /is not a read/,
  );
  assert.throws(
    () =>
      readCommandSpecs(catalog, [
        {
          command: ['workflow', 'run', 'start'],
          domain: 'workflow',
          action: 'run',
          op: 'start',
          fields: ['planId'],
        },
      ]),
    /is not a read/,
  );
  assert.throws(
    () =>
      readCommandSpecs(catalog, [
        { command: ['task', 'list'], domain: 'task', action: 'list', fields: ['nope'] },
      ]),
    /no input field nope/,
  );
  assert.throws(
    () => readCommandSpecs(catalog, [{ command: ['x'], domain: 'nope', action: 'list' }]),
    /no catalog action/,
  );
});

test('the route admits an operator read only for its listed op', () => {
  assert.ok(operatorReadOf('workflow', 'run', { op: 'list' }));
  assert.ok(operatorReadOf('workflow', 'run', { op: 'show', id: 'run_000000' }));
  assert.equal(operatorReadOf('workflow', 'run', { op: 'start' }), undefined);
  assert.equal(operatorReadOf('workflow', 'run', {}), undefined);
  assert.ok(operatorReadOf('task', 'list', {}));
  assert.equal(operatorReadOf('task', 'update', {}), undefined);
});
