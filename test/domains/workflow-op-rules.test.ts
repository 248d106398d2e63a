import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { defaultCatalog } from '../../catalog/catalog.js';
import { loadInputValidator, type InputCheck } from '../../lib/input-validators.js';
import { compileInputCheck } from '../../daemon/exec/validate.js';
import { helpIndexOf } from '../../catalog/help.js';

/*
 * The per-op field rules of the workflow actions, written out here on their
 * own (not read from the catalog), so dropping or loosening a rule in the
 * catalog fails this test. `required` fields must be given, `optional` may
 * be, paged ops also take limit and cursor, effect ops the idempotency
 * selectors; every other field of the action is refused, naming the field.
 */
interface Expected {
  readonly required?: readonly string[];
  readonly optional?: readonly string[];
  readonly paged?: true;
  readonly effect?: true;
  /** Exactly one of these (start) or at least one (update): given alone each passes. */
  readonly oneOf?: readonly string[];
  readonly anyOf?: readonly string[];
}

const ID = { required: ['id'] } as const;
const NOTE = { required: ['id'], optional: ['note'], effect: true } as const;

const EXPECTED: Record<string, Record<string, Expected>> = {
  plan: {
    list: { optional: ['status'], paged: true },
    show: ID,
    version: { required: ['id', 'version'] },
    validate: { required: ['steps'], optional: ['name', 'description'] },
    create: { required: ['name', 'steps'], optional: ['description'], effect: true },
    update: { required: ['id'], anyOf: ['name', 'description', 'steps'], effect: true },
    archive: { ...ID, effect: true },
    publish: { required: ['id'], optional: ['version'], effect: true },
  },
  trigger: {
    list: { optional: ['planId'], paged: true },
    show: ID,
    validate: { required: ['kind'], optional: ['cron', 'timeZone', 'target', 'planId'] },
    create: {
      required: ['planId', 'kind'],
      optional: ['cron', 'timeZone', 'target'],
      effect: true,
    },
    update: { required: ['id'], optional: ['cron', 'timeZone', 'target'], effect: true },
    enable: { ...ID, effect: true },
    disable: { ...ID, effect: true },
    archive: { ...ID, effect: true },
  },
  run: {
    list: { optional: ['planId', 'status'], paged: true },
    show: ID,
    logs: { required: ['id'], paged: true },
    start: { oneOf: ['planId', 'triggerId'], effect: true },
    cancel: { ...ID, effect: true },
  },
  step: {
    list: { required: ['runId'], paged: true },
    get: ID,
    complete: NOTE,
    fail: NOTE,
    pause: NOTE,
    park: NOTE,
  },
};

/** A valid value of every workflow input field (status depends on the action). */
const VALUES: Record<string, unknown> = {
  id: 'wf_01J9Z3K8Q2',
  planId: 'plan_01J9Z3K8Q2',
  runId: 'run_01J9Z3K8Q2',
  triggerId: 'trig_01J9Z3K8Q2',
  name: 'n',
  description: 'd',
  steps: [{ name: 'a' }],
  version: 1,
  kind: 'manual',
  cron: '0 9 * * 1',
  timeZone: 'UTC',
  target: 'channel:deploys',
  note: 'green',
  limit: 5,
  cursor: 'c',
  idempotencyKey: 'k1',
  requestId: 'k1',
};
const STATUS: Record<string, string> = { plan: 'draft', run: 'running' };

const catalog = defaultCatalog();

function fieldsOf(action: string): string[] {
  const input = catalog.get('workflow', action)!.descriptor.input as {
    properties: Record<string, unknown>;
  };
  return Object.keys(input.properties).filter((f) => f !== 'op');
}

const value = (action: string, f: string) => (f === 'status' ? STATUS[action] : VALUES[f]);

function check(checks: readonly InputCheck[], input: Record<string, unknown>, path?: string) {
  for (const c of checks) {
    const r = c(input);
    if (path === undefined) assert.deepEqual(r, { ok: true }, JSON.stringify(input));
    else {
      assert.equal(r.ok, false, JSON.stringify(input));
      if (!r.ok) assert.equal(r.details[0]?.path, path, JSON.stringify(input));
    }
  }
}

test('each workflow op takes exactly its fields: the generated and the daemon validators refuse a missing or foreign field naming it', async () => {
  assert.deepEqual(Object.keys(EXPECTED), ['plan', 'trigger', 'run', 'step']);
  for (const [action, ops] of Object.entries(EXPECTED)) {
    const d = catalog.get('workflow', action)!.descriptor;
    const checks = [(await loadInputValidator('workflow', action))!, compileInputCheck(d)];
    assert.deepEqual(
      (d.input as { properties: { op: { enum: string[] } } }).properties.op.enum,
      Object.keys(ops),
    );
    for (const [op, e] of Object.entries(ops)) {
      const base: Record<string, unknown> = { op };
      for (const f of e.required ?? []) base[f] = value(action, f);
      const alternatives = e.oneOf ?? e.anyOf ?? [];
      const taken = new Set([
        ...(e.required ?? []),
        ...(e.optional ?? []),
        ...alternatives,
        ...(e.paged ? ['limit', 'cursor'] : []),
        ...(e.effect ? ['idempotencyKey', 'requestId'] : []),
      ]);
      const first = alternatives[0];
      const minimal = first === undefined ? base : { ...base, [first]: value(action, first) };
      check(checks, minimal);
      for (const f of e.required ?? []) {
        const { [f]: _dropped, ...without } = minimal;
        check(checks, without, `/${f}`);
      }
      for (const f of alternatives) check(checks, { ...base, [f]: value(action, f) });
      if (alternatives.length > 0) check(checks, base, `/${alternatives[0]}`);
      if (e.oneOf) {
        const both = Object.fromEntries(e.oneOf.map((f) => [f, value(action, f)]));
        check(checks, { ...base, ...both }, '');
      }
      for (const f of fieldsOf(action)) {
        const input = { ...minimal, [f]: value(action, f) };
        if (e.oneOf?.includes(f) && f !== first) check(checks, input, '');
        else if (taken.has(f)) check(checks, input);
        else check(checks, input, `/${f}`);
      }
    }
  }
});

test("a workflow action's help lists each op's fields, read from its rules", () => {
  const workflow = helpIndexOf(catalog).domains.find((x) => x.domain === 'workflow')!;
  const plan = workflow.actions.find((a) => a.action === 'plan')!;
  assert.deepEqual(
    plan.ops?.map((o) => [o.op, o.fields.join(', '), o.risk]),
    [
      ['list', 'status?, limit?, cursor?', 'read'],
      ['show', 'id', 'read'],
      ['version', 'id, version', 'read'],
      ['validate', 'steps, name?, description?', 'read'],
      ['create', 'name, steps, description?', 'side_effect'],
      ['update', 'id, name?, description?, steps?', 'side_effect'],
      ['archive', 'id', 'side_effect'],
      ['publish', 'id, version?', 'side_effect'],
    ],
  );
  const run = workflow.actions.find((a) => a.action === 'run')!;
  assert.equal(run.ops?.find((o) => o.op === 'start')?.note, 'exactly one of planId, triggerId');
});
