import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import {
  NameConflictError,
  ToolRegistry,
  type RegisteredTool,
  type ToolOwner,
} from '../../daemon/tools/registry.js';
import { ExecError } from '../../daemon/errors/exec-error.js';

const owner = (key: string): ToolOwner => ({ key, label: `owner ${key}` });
const tool = (o: ToolOwner, name: string): RegisteredTool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
  annotations: {},
  owner: o,
  call: () => '{"content":[]}',
});

test('tool registry: owners replace their entries as a whole; revision bumps and listeners hear it', () => {
  const r = new ToolRegistry();
  const a = owner('a');
  const b = owner('b');
  const seen: number[] = [];
  const off = r.subscribe((rev) => seen.push(rev));
  r.replace(a, [tool(a, 'one'), tool(a, 'two')]);
  r.replace(b, [tool(b, 'three')]);
  assert.deepEqual(
    r.list().map((t) => t.name),
    ['one', 'two', 'three'],
  );
  r.replace(a, [tool(a, 'two'), tool(a, 'four')]);
  assert.deepEqual(
    r.list().map((t) => t.name),
    ['two', 'four', 'three'],
  );
  assert.equal(r.get('one'), undefined);
  r.remove('a');
  assert.deepEqual(
    r.list().map((t) => t.name),
    ['three'],
  );
  r.replace(a, []); // nothing to remove: no revision
  assert.deepEqual(seen, [1, 2, 3, 4]);
  assert.equal(r.revision, 4);
  off();
  r.remove('b');
  assert.deepEqual(seen, [1, 2, 3, 4]);
});

test('tool registry: a name held by another owner is a conflict naming both parties; nothing changes', () => {
  const r = new ToolRegistry();
  const a = owner('a');
  const b = owner('b');
  r.replace(a, [tool(a, 'shared')]);
  const rev = r.revision;
  assert.throws(
    () => r.replace(b, [tool(b, 'fresh'), tool(b, 'shared')]),
    (err: unknown) => {
      assert.ok(err instanceof NameConflictError);
      assert.equal(err.code, 'name_conflict');
      assert.match(err.message, /"shared" of owner b is already taken by owner a/);
      return true;
    },
  );
  assert.equal(r.revision, rev);
  assert.equal(r.get('fresh'), undefined);
  assert.throws(
    () => r.replace(b, [tool(b, 'x'), tool(b, 'x')]),
    (e: unknown) => e instanceof ExecError && /listed twice/.test(e.message),
  );
  assert.throws(() => r.replace(b, [tool(b, 'bad name')]), /must match/);
});

test('tool registry: tools/list JSON is cached per revision and hidden set', () => {
  const r = new ToolRegistry();
  const a = owner('a');
  r.replace(a, [tool(a, 'x'), tool(a, 'y')]);
  const all = r.listResultJson();
  assert.equal(r.listResultJson(), all, 'same string object while the revision holds');
  assert.deepEqual(
    (JSON.parse(all) as { tools: { name: string }[] }).tools.map((t) => t.name),
    ['x', 'y'],
  );
  const hidden = r.listResultJson(new Set(['x']));
  assert.deepEqual(
    (JSON.parse(hidden) as { tools: { name: string }[] }).tools.map((t) => t.name),
    ['y'],
  );
  r.replace(a, [tool(a, 'z')]);
  assert.deepEqual(
    (JSON.parse(r.listResultJson()) as { tools: { name: string }[] }).tools.map((t) => t.name),
    ['z'],
  );
});
