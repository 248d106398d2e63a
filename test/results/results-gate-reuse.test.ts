import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ResultGate } from '../../daemon/results/gate.js';
import { SecretSet } from '../../daemon/masking/secrets.js';
import { SpillStore } from '../../daemon/results/spill.js';
import { fixedSource } from '../../daemon/masking/sources.js';
import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import type { BoundaryPolicy } from '../../daemon/results/boundary.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { deepFreeze } from '../../lib/deep-freeze.js';

/**
 * A read's cached answer object keeps its screened body (`json` with a read policy), and
 * only while nothing the body depends on has changed: the masked values,
 * the policy, the options. Failures are never kept.
 */

const POLICY: BoundaryPolicy = {
  domain: 'task',
  action: 'get',
  risk: 'read',
  result: { hint: 'smaller', next: { action: 'task get', input: {} } },
  receipt: null as never,
};

function gate(): { gate: ResultGate; secrets: SecretSet } {
  const secrets = new SecretSet();
  secrets.add(fixedSource('API_TOKEN', 'correct-horse-battery'));
  return {
    gate: new ResultGate(
      secrets,
      new SpillStore({
        dir: join(tmpdir(), 'agentteam-test-spill'),
        clock: { now: () => Date.now() } as never,
      }),
    ),
    secrets,
  };
}

test('json: the same object gets the very same outcome again, and an equal but other object its own', () => {
  const { gate: g } = gate();
  const data = Object.freeze({ task: Object.freeze({ id: 't1', title: 'hello' }) });
  const first = g.json(POLICY, {}, data);
  assert.ok(first.ok);
  assert.equal(first.body, JSON.stringify({ ok: true, data }));
  assert.equal(g.json(POLICY, {}, data), first, 'reused');
  const twin = { task: { id: 't1', title: 'hello' } };
  const other = g.json(POLICY, {}, twin);
  assert.notEqual(other, first);
  assert.ok(other.ok && other.body === first.body);
  // Another policy object or options object: made again.
  assert.notEqual(g.json({ ...POLICY }, {}, data), first);
  assert.notEqual(g.json(POLICY, {}, data, { wrap: (d) => d }), first);
  // Not an object: nothing to key on, answered as json() does.
  const scalar = g.json(POLICY, {}, 'plain');
  assert.ok(scalar.ok && scalar.body === JSON.stringify({ ok: true, data: 'plain' }));
});

test('json: a secret added after the body was made is masked in the next answer', () => {
  const { gate: g, secrets } = gate();
  const data = Object.freeze({
    task: Object.freeze({ id: 't2', title: 'deploy with hunter2-long-secret now' }),
  });
  const before = g.json(POLICY, {}, data);
  assert.ok(before.ok && before.body.includes('hunter2-long-secret'));
  secrets.add(fixedSource('DEPLOY_KEY', 'hunter2-long-secret'));
  const after = g.json(POLICY, {}, data);
  assert.notEqual(after, before);
  assert.ok(after.ok, JSON.stringify(after));
  assert.ok(!after.body.includes('hunter2-long-secret'), after.body);
  assert.ok(after.body.includes('[DEPLOY_KEY]'), after.body);
  // And the masked body is what is reused from then on.
  assert.equal(g.json(POLICY, {}, data), after);
});

test('json: an answer over the budget is refused every time and never kept', () => {
  const { gate: g } = gate();
  const data = Object.freeze({
    items: Array.from({ length: 8 }, (_, i) => ({
      id: `m${i}`,
      text: 'x'.repeat(RESULT_BUDGET_BYTES / 6),
    })),
  });
  const a = g.json(POLICY, { limit: 8 }, data);
  const b = g.json(POLICY, { limit: 8 }, data);
  assert.equal(a.ok, false);
  assert.equal(b.ok, false);
  assert.notEqual(a, b, 'a failure is worked out again for each call');
  assert.ok(!a.ok && a.error.code === 'result_budget_exceeded');
});

test('deepFreeze: every object and array reachable is frozen, the value is unchanged, cycles end', () => {
  const allFrozen = (v: unknown, seen = new Set<unknown>()): boolean => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return true;
    seen.add(v);
    return Object.isFrozen(v) && Object.values(v).every((x) => allFrozen(x, seen));
  };
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const copy = structuredClone(v);
      assert.equal(deepFreeze(v), v);
      assert.ok(allFrozen(v));
      assert.deepEqual(v, copy);
    }),
    { numRuns: 200 },
  );
  const cyclic: Record<string, unknown> = { a: [1, { b: 2 }] };
  cyclic.self = cyclic;
  deepFreeze(cyclic);
  assert.ok(allFrozen(cyclic));
  assert.throws(() => {
    (cyclic.a as unknown[]).push(3);
  }, TypeError);
});
