import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { defaultCatalog } from '../../catalog/catalog.js';
import { OPERATOR_WRITES, writeCommandSpecs } from '../../catalog/operator-writes.js';
import { OPERATOR_WRITE_ROUTES } from '../../catalog/operator/writes.js';
import { OPERATOR_API } from '../../catalog/operator/table.js';
import { callRisk } from '../../catalog/descriptor.js';
import { taskGet, taskUpdate } from '../../catalog/domains/task.js';

const catalog = defaultCatalog();

test("every operator write is a catalog side effect, and its command is declared from the action's input schema", () => {
  const specs = writeCommandSpecs(catalog);
  assert.equal(specs.length, OPERATOR_WRITES.length);
  for (const s of specs) {
    const d = catalog.get(s.domain, s.action)!.descriptor;
    assert.notEqual(callRisk(d, {}), 'read', s.command.join(' '));
    assert.equal(s.write, true);
    assert.equal(s.route, `writes.${s.domain}.${s.action}`);
    const props = (d.input as { properties: Record<string, unknown> }).properties;
    for (const f of [...s.args, ...s.options]) {
      assert.ok(props[f.name], `${s.command.join(' ')}: ${f.name}`);
      assert.notEqual(f.name, 'requestId');
    }
  }
  const spec = (words: string) => specs.find((s) => s.command.join(' ') === words)!;
  assert.deepEqual(
    spec('task create').args.map((a) => a.name),
    ['title'],
  );
  assert.deepEqual(
    spec('task assign').args.map((a) => a.name),
    ['id', 'assignee'],
  );
  assert.equal(spec('task assign').route, 'writes.task.update');
  // Fields that take null can be cleared from the command line; required ones cannot.
  assert.deepEqual(
    spec('task update')
      .options.filter((o) => o.nullable)
      .map((o) => o.flag),
    ['--assignee', '--project-id'],
  );
  assert.equal(spec('task assign').args[1]!.nullable, undefined);
  assert.deepEqual(
    spec('project create').options.map((o) => o.flag),
    ['--description', '--idempotency-key'],
  );
});

test('a read, an unknown field or an unknown action cannot become an operator write', () => {
  assert.throws(
    () => writeCommandSpecs(catalog, [{ command: ['task', 'get'], descriptor: taskGet }]),
    /is a read/,
  );
  assert.throws(
    () =>
      writeCommandSpecs(catalog, [
        { command: ['task', 'x'], descriptor: taskUpdate, fields: ['nope'] },
      ]),
    /no input field nope/,
  );
  assert.throws(
    () =>
      writeCommandSpecs(catalog, [
        { command: ['x'], descriptor: { ...taskUpdate, domain: 'nope' } },
      ]),
    /no catalog action/,
  );
});

test("each write action is one row of the operator API: the action's input as the body, the person in the query", () => {
  const actions = [...new Set(OPERATOR_WRITES.map((r) => r.descriptor))];
  assert.equal(OPERATOR_WRITE_ROUTES.length, actions.length);
  for (const d of actions) {
    const name = `writes.${d.domain}.${d.action}`;
    const row = OPERATOR_API.find((r) => r.name === name);
    assert.ok(row, name);
    assert.equal(row.method, 'POST');
    assert.equal(row.path, `/api/v1/servers/:serverId/writes/${d.domain}/${d.action}`);
    assert.equal('body' in row && row.body, d.input, name);
    const out = row.output as { properties: Record<string, unknown> };
    for (const k of Object.keys((d.output as { properties: object }).properties))
      assert.ok(k in out.properties, `${name}: ${k}`);
    assert.ok('turns' in out.properties);
    assert.ok('query' in row);
  }
});
