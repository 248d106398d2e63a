import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { defaultCatalog } from '../catalog/catalog.js';
import { boundResult, RESULT_BUDGET_BYTES } from '../daemon/exec/result-boundary.js';

const row = (domain: string, action: string) => defaultCatalog().get(domain, action)!.inventory;
const task = (description: string) => ({
  id: 'task_abcdef123456', title: 't', description, status: 'todo', assignee: null, projectId: null,
  revision: 3, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});

function sizeOf(data: unknown): number {
  return Buffer.byteLength(JSON.stringify({ ok: true, data }));
}

test('an envelope at exactly the budget passes unchanged; one byte more does not', () => {
  const base = sizeOf({ task: task('') });
  const exact = { task: task('x'.repeat(RESULT_BUDGET_BYTES - base)) };
  assert.equal(sizeOf(exact), RESULT_BUDGET_BYTES);
  const ok = boundResult(row('task', 'get'), { id: 'task_abcdef123456' }, exact);
  assert.ok(ok.ok);
  assert.equal(ok.body, JSON.stringify({ ok: true, data: exact }));
  const over = boundResult(row('task', 'get'), { id: 'task_abcdef123456' }, { task: task('x'.repeat(RESULT_BUDGET_BYTES - base + 1)) });
  assert.ok(!over.ok);
  assert.equal(over.error.code, 'result_budget_exceeded');
  assert.equal(over.error.extra.hint, row('task', 'get').result.hint);
  assert.deepEqual(over.error.extra.next, row('task', 'get').result.next);
  assert.equal(over.error.extra.metadata, undefined);
});

test('multi-byte characters count in UTF-8 bytes', () => {
  const big = { task: task('é'.repeat(RESULT_BUDGET_BYTES / 2)) };
  const out = boundResult(row('task', 'get'), {}, big);
  assert.ok(!out.ok);
});

test('read next placeholders are filled from the caller input', () => {
  const out = boundResult(row('review', 'list'), { taskId: 'task_zzzzzz111111' }, { reviews: ['x'.repeat(RESULT_BUDGET_BYTES)], hasMore: false });
  assert.ok(!out.ok);
  assert.deepEqual(out.error.extra.next, { action: 'review list', input: { taskId: 'task_zzzzzz111111', limit: 5 } });
});

test('a mutation over budget returns only allowlisted selectors and a retrieval call', () => {
  const data = { task: { ...task('x'.repeat(RESULT_BUDGET_BYTES)), title: 'SECRET-TITLE' } };
  const out = boundResult(row('task', 'create'), { title: 'SECRET-TITLE', idempotencyKey: 'k-1' }, data);
  assert.ok(!out.ok);
  assert.equal(out.error.code, 'result_budget_exceeded');
  assert.deepEqual(out.error.extra.metadata, {
    mutation_applied: true,
    mutation_receipt: {
      entity: 'task', id: 'task_abcdef123456', revision: 3, idempotencyKey: 'k-1',
      retrieval: { action: 'task get', input: { id: 'task_abcdef123456' } },
    },
  });
  assert.equal(out.error.extra.hint, undefined);
  assert.doesNotMatch(JSON.stringify(out.error.extra), /SECRET/);
  const review = boundResult(row('review', 'add'), {}, { review: { id: 'review_abcdef1', taskId: 'task_abcdef1', body: 'x'.repeat(RESULT_BUDGET_BYTES) } });
  assert.ok(!review.ok);
  assert.deepEqual((review.error.extra.metadata as { mutation_receipt: unknown }).mutation_receipt, {
    entity: 'review', id: 'review_abcdef1', taskId: 'task_abcdef1',
    retrieval: { action: 'review list', input: { taskId: 'task_abcdef1' } },
  });
});

test('unserializable results: a mutation fails closed without mutation_applied; a read gets its guidance', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const bad of [cyclic, { n: 10n }, undefined]) {
    const m = boundResult(row('task', 'update'), { id: 'task_abcdef123456' }, bad);
    assert.ok(!m.ok);
    assert.equal(m.error.code, 'internal');
    assert.equal(m.error.extra.metadata, undefined);
    const r = boundResult(row('task', 'list'), {}, bad);
    assert.ok(!r.ok);
    assert.equal(r.error.code, 'result_budget_exceeded');
  }
});

test('a custom wrap is what gets measured and returned (MCP)', () => {
  const out = boundResult(row('task', 'get'), {}, { a: 1 }, { wrap: (d) => ({ content: [{ type: 'text', text: JSON.stringify(d) }] }) });
  assert.ok(out.ok);
  assert.equal(out.body, '{"content":[{"type":"text","text":"{\\"a\\":1}"}]}');
});
