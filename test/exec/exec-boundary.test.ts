import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { defaultCatalog } from '../../catalog/catalog.js';
import { CURSOR_MAX_CHARS } from '../../catalog/limits.js';
import { RESULT_BUDGET_BYTES } from '../../daemon/results/boundary.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../lib/clock.js';
import { ResultGate } from '../../daemon/results/gate.js';
import { SecretSet } from '../../daemon/masking/secrets.js';
import { SpillStore } from '../../daemon/results/spill.js';

// Bounding is only done by the result gate (masking first); with no secrets it is the size boundary alone.
const gate = new ResultGate(
  new SecretSet(),
  new SpillStore({ dir: join(tmpdir(), 'agentteam-test-spill'), clock: systemClock }),
);
const boundResult: ResultGate['json'] = (...a) => gate.json(...a);

const row = (domain: string, action: string) => defaultCatalog().get(domain, action)!.inventory;
const task = (description: string) => ({
  id: 'task_abcdef123456',
  title: 't',
  description,
  status: 'todo',
  assignee: null,
  projectId: null,
  revision: 3,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
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
  const over = boundResult(
    row('task', 'get'),
    { id: 'task_abcdef123456' },
    { task: task('x'.repeat(RESULT_BUDGET_BYTES - base + 1)) },
  );
  assert.ok(!over.ok);
  assert.equal(over.error.code, 'result_budget_exceeded');
  assert.equal(over.error.extra.hint, row('task', 'get').result.hint);
  // No read of one task is smaller than task get: no next call is invented (no "field paging").
  assert.equal(over.error.extra.next, undefined);
  assert.doesNotMatch(String(over.error.extra.hint), /page by page|fields/);
  assert.equal(over.error.extra.metadata, undefined);
});

test('multi-byte characters count in UTF-8 bytes', () => {
  const big = { task: task('é'.repeat(RESULT_BUDGET_BYTES / 2)) };
  const out = boundResult(row('task', 'get'), {}, big);
  assert.ok(!out.ok);
});

const review = (i: number, size: number) => ({
  id: `review_${String(i).padStart(8, '0')}`,
  body: 'x'.repeat(size),
});

test("a page over budget: next keeps the caller's filters and cursor and asks for the largest page that fits", () => {
  const input = { taskId: 'task_zzzzzz111111', cursor: 'c1.previous', limit: 50 };
  const reviews = Array.from({ length: 10 }, (_, i) => review(i, 10_000));
  const out = boundResult(row('review', 'list'), input, {
    reviews,
    hasMore: true,
    nextCursor: 'c1.after10',
  });
  assert.ok(!out.ok);
  assert.equal(out.error.code, 'result_budget_exceeded');
  const next = out.error.extra.next as { action: string; input: Record<string, unknown> };
  assert.equal(next.action, 'review list');
  assert.deepEqual(next.input, { taskId: 'task_zzzzzz111111', cursor: 'c1.previous', limit: 6 });
  // The page it asks for does fit (with a cursor of the length the server issues), one more item would not.
  const fits = (k: number) =>
    sizeOf({
      reviews: reviews.slice(0, k),
      hasMore: true,
      nextCursor: 'x'.repeat(CURSOR_MAX_CHARS),
    }) <= RESULT_BUDGET_BYTES;
  assert.ok(fits(6) && !fits(7));
});

test('next never asks for a larger page, whatever the caller sent', () => {
  for (const limit of [undefined, 2, 3, 20, 100]) {
    const n = limit ?? 20;
    const reviews = Array.from({ length: n }, (_, i) =>
      review(i, Math.ceil(RESULT_BUDGET_BYTES / Math.max(1, n - 1))),
    );
    const input =
      limit === undefined
        ? { taskId: 'task_zzzzzz111111' }
        : { taskId: 'task_zzzzzz111111', limit };
    const out = boundResult(row('review', 'list'), input, { reviews, hasMore: false });
    assert.ok(!out.ok);
    const next = out.error.extra.next as { input: { limit: number; taskId: string } };
    assert.ok(
      next.input.limit >= 1 && next.input.limit < n,
      `limit ${String(limit)} -> ${next.input.limit}`,
    );
    assert.equal(next.input.taskId, 'task_zzzzzz111111');
  }
});

test('a page of one that cannot fit: next steps past that item from the same position; the last one says so', () => {
  const input = { taskId: 'task_zzzzzz111111', cursor: 'c1.here', limit: 1 };
  const one = [review(7, RESULT_BUDGET_BYTES)];
  const out = boundResult(row('review', 'list'), input, {
    reviews: one,
    hasMore: true,
    nextCursor: 'c1.past7',
  });
  assert.ok(!out.ok);
  assert.deepEqual(out.error.extra.next, {
    action: 'review list',
    input: { taskId: 'task_zzzzzz111111', cursor: 'c1.past7', limit: 1 },
  });
  assert.match(String(out.error.extra.hint), /review_00000007/);
  const last = boundResult(row('review', 'list'), input, { reviews: one, hasMore: false });
  assert.ok(!last.ok);
  assert.equal(last.error.extra.next, undefined);
  assert.match(String(last.error.extra.hint), /last one/);
});

test('a mutation over budget returns only allowlisted selectors and a retrieval call', () => {
  const data = { task: { ...task('x'.repeat(RESULT_BUDGET_BYTES)), title: 'SECRET-TITLE' } };
  const out = boundResult(
    row('task', 'create'),
    { title: 'SECRET-TITLE', idempotencyKey: 'k-1' },
    data,
  );
  assert.ok(!out.ok);
  assert.equal(out.error.code, 'result_budget_exceeded');
  assert.deepEqual(out.error.extra.metadata, {
    mutation_applied: true,
    mutation_receipt: {
      entity: 'task',
      id: 'task_abcdef123456',
      revision: 3,
      idempotencyKey: 'k-1',
      retrieval: { action: 'task get', input: { id: 'task_abcdef123456' } },
    },
  });
  assert.equal(out.error.extra.hint, undefined);
  assert.doesNotMatch(JSON.stringify(out.error.extra), /SECRET/);
  const review = boundResult(
    row('review', 'add'),
    {},
    {
      review: {
        id: 'review_abcdef1',
        taskId: 'task_abcdef1',
        body: 'x'.repeat(RESULT_BUDGET_BYTES),
      },
    },
  );
  assert.ok(!review.ok);
  assert.deepEqual(
    (review.error.extra.metadata as { mutation_receipt: unknown }).mutation_receipt,
    {
      entity: 'review',
      id: 'review_abcdef1',
      taskId: 'task_abcdef1',
      retrieval: { action: 'review list', input: { taskId: 'task_abcdef1' } },
    },
  );
});

test('unserializable results: a mutation fails closed without mutation_applied; a read gets its guidance', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const bad of [cyclic, { n: 10n }, undefined]) {
    const m = boundResult(row('task', 'update'), { id: 'task_abcdef123456' }, bad);
    assert.ok(!m.ok);
    assert.equal(m.error.code, 'internal');
    assert.equal(m.error.extra.metadata, undefined);
    const r = boundResult(row('task', 'list'), { status: 'todo', limit: 9 }, bad);
    assert.ok(!r.ok);
    assert.equal(r.error.code, 'result_budget_exceeded');
    assert.deepEqual(r.error.extra.next, {
      action: 'task list',
      input: { status: 'todo', limit: 4 },
    });
  }
});

test('a custom wrap is what gets measured and returned (MCP)', () => {
  const out = boundResult(
    row('task', 'get'),
    {},
    { a: 1 },
    { wrap: (d) => ({ content: [{ type: 'text', text: JSON.stringify(d) }] }) },
  );
  assert.ok(out.ok);
  assert.equal(out.body, '{"content":[{"type":"text","text":"{\\"a\\":1}"}]}');
});
