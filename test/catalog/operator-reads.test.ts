import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { defaultCatalog } from '../../catalog/catalog.js';
import { OPERATOR_READS, operatorReadOf, readCommandSpecs } from '../../catalog/operator-reads.js';
import { OPERATOR_READ_ROUTES } from '../../catalog/operator/reads.js';
import { OPERATOR_API } from '../../catalog/operator/table.js';
import { callRisk } from '../../catalog/descriptor.js';
import { taskCreate, taskList } from '../../catalog/domains/task.js';
import { workflowRun } from '../../catalog/domains/workflow.js';

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
    () => readCommandSpecs(catalog, [{ command: ['task', 'create'], descriptor: taskCreate }]),
    /is not a read/,
  );
  assert.throws(
    () =>
      readCommandSpecs(catalog, [
        {
          command: ['workflow', 'run', 'start'],
          descriptor: workflowRun,
          op: 'start',
          fields: ['planId'],
        },
      ]),
    /is not a read/,
  );
  assert.throws(
    () =>
      readCommandSpecs(catalog, [
        { command: ['task', 'list'], descriptor: taskList, fields: ['nope'] },
      ]),
    /no input field nope/,
  );
  assert.throws(
    () =>
      readCommandSpecs(catalog, [{ command: ['x'], descriptor: { ...taskList, domain: 'nope' } }]),
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

test("each read action is one row of the operator API, with the action's own input and output schemas", () => {
  const actions = [...new Set(OPERATOR_READS.map((r) => r.descriptor))];
  assert.equal(OPERATOR_READ_ROUTES.length, actions.length);
  for (const d of actions) {
    const name = `reads.${d.domain}.${d.action}`;
    const row = OPERATOR_API.find((r) => r.name === name);
    assert.ok(row, name);
    assert.equal(row.method, 'POST');
    assert.equal(row.path, `/api/v1/servers/:serverId/reads/${d.domain}/${d.action}`);
    assert.equal('body' in row && row.body, d.input, name);
    assert.equal(row.output, d.output, name);
  }
  // Each command names the row it calls.
  for (const s of readCommandSpecs(catalog))
    assert.equal(s.route, `reads.${s.domain}.${s.action}`, s.command.join(' '));
  // Two commands, one row: workflow run list and show are ops of one action.
  assert.deepEqual(
    OPERATOR_READ_ROUTES.map((r) => r.name).filter((n) => n.startsWith('reads.workflow')),
    ['reads.workflow.run'],
  );
});
