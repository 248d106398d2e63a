import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { LIMITS, jsonBytes } from '../../catalog/limits.js';
import { cursorCases, startInProc } from '../../devkit/inproc.js';

/* Workflow bounds: the largest plan the schema allows, and paging every workflow collection. */

const ok = (r: { status: number; json: any }) => {
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json.data;
};

test('plan size limits: the largest plan the schema allows is created and shown; one step or code point more is refused with no trace', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  // Every string at its published limit, written with 6-byte control characters and 4-byte emoji.
  const fill = (l: { chars: number; bytes: number }, i: number) =>
    `${i}`.padEnd(Math.min(l.chars, Math.floor(l.bytes / 6)), '\u0001');
  const steps = Array.from({ length: LIMITS.planSteps }, (_, i) => ({
    name: fill(LIMITS.stepName, i),
    description: fill(LIMITS.stepDescription, i),
  }));
  const name = '\u{1F600}'.repeat(
    Math.min(LIMITS.planName.chars, Math.floor(LIMITS.planName.bytes / 4)),
  );
  // At the published limit in the costliest characters: every code point a 6-byte control character, within the byte budget.
  const description = '\u0001'.repeat(LIMITS.planDescription.chars);
  assert.ok(jsonBytes(description) <= LIMITS.planDescription.bytes);
  const big = ok(await call('workflow', 'plan', { op: 'create', name, description, steps }));
  const id = big.plan.id;
  assert.equal(big.plan.description, description);
  const shown = ok(await call('workflow', 'plan', { op: 'version', id, version: 1 }));
  assert.deepEqual(shown.version.steps, steps);
  assert.equal(ok(await call('workflow', 'plan', { op: 'list', limit: 1 })).plans[0].id, id);
  ok(await call('workflow', 'plan', { op: 'publish', id }));
  const run = ok(await call('workflow', 'run', { op: 'start', planId: id }));
  const note = '\u0001'.repeat(Math.floor(LIMITS.stepNote.bytes / 6));
  // Each completion readies the next step; the log quotes every note.
  for (const st of run.steps)
    ok(await call('workflow', 'step', { op: 'complete', id: st.id, note }));
  const runShown = ok(await call('workflow', 'run', { op: 'show', id: run.run.id }));
  assert.equal(runShown.steps.length, LIMITS.planSteps);
  const logs = ok(await call('workflow', 'run', { op: 'logs', id: run.run.id, limit: 100 }));
  assert.ok(logs.logs.length > 0);
  for (const bad of [
    { op: 'create', name: 'x', steps: [...steps, { name: 'one more' }] },
    {
      op: 'create',
      name: 'x',
      steps: [{ name: 'a', description: `\u0001${fill(LIMITS.stepDescription, 0)}` }],
    },
    { op: 'create', name: `a${name}`, steps: [{ name: 'a' }] },
    { op: 'create', name: 'x', description: `a${description}`, steps: [{ name: 'a' }] }, // one code point over
  ]) {
    const r = await call('workflow', 'plan', bad);
    assert.equal(r.json.error?.code, 'validation_failed', JSON.stringify(bad).slice(0, 80));
  }
  assert.equal(ok(await call('workflow', 'plan', { op: 'list' })).plans.length, 1);
  const overNote = await call('workflow', 'step', {
    op: 'complete',
    id: run.steps[0].id,
    note: `${note}\u0001`,
  });
  assert.equal(overNote.json.error?.code, 'validation_failed');
});

test('every workflow collection pages and rejects bad, foreign and filter-mismatched cursors', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  const other = await p.runtime('s2', 'a1');
  const steps = Array.from({ length: 7 }, (_, i) => ({ name: `s${i}` }));
  const plans: string[] = [];
  for (let i = 0; i < 7; i++) {
    p.clock.advance(i % 2 ? 1000 : 0);
    plans.push(ok(await call('workflow', 'plan', { op: 'create', name: `p${i}`, steps })).plan.id);
  }
  ok(await call('workflow', 'plan', { op: 'publish', id: plans[0] }));
  ok(await call('workflow', 'plan', { op: 'publish', id: plans[1] }));
  for (let i = 0; i < 5; i++)
    ok(await call('workflow', 'trigger', { op: 'create', planId: plans[0], kind: 'manual' }));
  const runs: string[] = [];
  for (let i = 0; i < 5; i++)
    runs.push(ok(await call('workflow', 'run', { op: 'start', planId: plans[0] })).run.id);
  const firstSteps = ok(
    await call('workflow', 'step', { op: 'list', runId: runs[0], limit: 100 }),
  ).steps;
  for (const s of firstSteps.slice(0, 4))
    ok(await call('workflow', 'step', { op: 'complete', id: s.id }));
  ok(await call('workflow', 'run', { op: 'start', planId: plans[1] }));

  const cases: [string, Record<string, unknown>, Record<string, unknown>, string, number][] = [
    ['plan', { op: 'list', status: 'draft' }, { op: 'list', status: 'published' }, 'plans', 5],
    ['trigger', { op: 'list', planId: plans[0] }, { op: 'list', planId: plans[1] }, 'triggers', 5],
    ['run', { op: 'list', planId: plans[0] }, { op: 'list', planId: plans[1] }, 'runs', 5],
    ['run', { op: 'logs', id: runs[0] }, { op: 'logs', id: runs[1] }, 'logs', 9],
    ['step', { op: 'list', runId: runs[0] }, { op: 'list', runId: runs[1] }, 'steps', 7],
  ];
  for (const [action, base, mismatched, field, total] of cases) {
    const ids: unknown[] = [];
    let cursor: string | undefined;
    let firstCursor: string | undefined;
    do {
      const r = ok(
        await call('workflow', action, { ...base, limit: 2, ...(cursor ? { cursor } : {}) }),
      );
      ids.push(...r[field].map((x: { id?: string; seq?: number }) => x.id ?? x.seq));
      assert.equal(r.hasMore, 'nextCursor' in r);
      cursor = r.nextCursor;
      firstCursor ??= cursor;
    } while (cursor);
    assert.equal(ids.length, total, `${action} ${String(base.op)}`);
    assert.equal(new Set(ids).size, total);
    assert.deepEqual(
      await cursorCases(call, other, 'workflow', action, base, firstCursor!, mismatched),
      [],
      `${action} ${String(base.op)}`,
    );
  }
});
