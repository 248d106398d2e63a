import { strict as assert } from 'node:assert';
import { ExecError } from '../daemon/errors/exec-error.js';
import type { Field, FieldStore } from './roundtrip-field-store.js';
import { inputProp, jsonText, ruleOf, sameText } from './roundtrip.js';
import { workflowPlan, workflowRun, workflowStep } from '../catalog/domains/workflow.js';

/** Workflow plan steps (name, description) and step notes: fields kept inside a plan version and on a run's steps. */
export async function workflowFields({
  db,
  api,
  rows,
  column,
  validate,
}: FieldStore): Promise<Field[]> {
  const fields: Field[] = [];
  // Step names and descriptions live in a plan version (JSON in wf_plan_versions.steps), by plan create and by plan update with steps.
  // The store trims a step name and refuses a blank one: that is checked (meaningful) and the read back is the trimmed name.
  const stepProp = (f: 'name' | 'description') =>
    (
      inputProp('workflow', 'plan', 'steps').items as {
        properties: Record<string, Record<string, unknown>>;
      }
    ).properties[f]!;
  const stepsJson = db.prepare(
    'SELECT steps AS v FROM wf_plan_versions WHERE plan_id = ? AND version = ?',
  );
  const { plan: basePlan } = await api.call(workflowPlan, {
    op: 'create',
    name: 'base',
    steps: [{ name: 'only' }],
  } as never);
  const stepField = (op: 'create' | 'update', f: 'name' | 'description'): Field => ({
    name: `workflow plan ${op} steps[].${f}`,
    path: `/steps/0/${f}`,
    rule: ruleOf(stepProp(f)),
    count: () => rows('wf_plan_versions'),
    ...(f === 'name' ? { meaningful: (s: string) => s.trim() !== '' } : {}),
    async run(s, escaped) {
      const step = f === 'name' ? { name: s } : { name: 's', description: s };
      const input = validate(
        'workflow plan',
        jsonText(
          op === 'create'
            ? { op, name: 'p', steps: [step] }
            : { op, id: basePlan!.id, steps: [step] },
          escaped,
        ),
        `/steps/0/${f}`,
      );
      if (!input) return false;
      let out: { plan?: { id: string }; version?: { version: number } };
      try {
        out = (await api.call(workflowPlan, input as never)) as typeof out;
      } catch (err) {
        // The store's own refusal (a blank name) names the same path.
        assert.ok(
          err instanceof ExecError &&
            err.code === 'validation_failed' &&
            (err.extra.details ?? []).some((x) => x.path === `/steps/0/${f}`),
          String(err),
        );
        return false;
      }
      const want = f === 'name' ? s.trim() : s;
      const { version } = (await api.call(workflowPlan, {
        op: 'version',
        id: out.plan!.id,
        version: out.version!.version,
      } as never)) as { version: { steps: Record<string, string>[] } };
      sameText(version.steps[0]![f], want, `workflow plan ${op} steps[].${f}`);
      const row = stepsJson.get(out.plan!.id, out.version!.version) as { v: string };
      sameText(
        (JSON.parse(row.v) as Record<string, string>[])[0]![f],
        want,
        `wf_plan_versions.steps[].${f}`,
      );
      return true;
    },
  });
  fields.push(
    stepField('create', 'name'),
    stepField('create', 'description'),
    stepField('update', 'name'),
    stepField('update', 'description'),
  );

  // Step notes: a fresh one-step run per accepted note (validated first, so a refused note starts nothing), then the transition with the note.
  const { plan: runPlan } = await api.call(workflowPlan, {
    op: 'create',
    name: 'runs',
    steps: [{ name: 'only' }],
  } as never);
  await api.call(workflowPlan, { op: 'publish', id: runPlan!.id } as never);
  for (const op of ['complete', 'fail', 'pause', 'park'] as const) {
    fields.push({
      name: `workflow step ${op} note`,
      path: '/note',
      rule: ruleOf(inputProp('workflow', 'step', 'note')),
      count: () => rows('wf_runs') + rows('wf_steps'),
      async run(s, escaped) {
        const input = validate(
          'workflow step',
          jsonText({ op, id: 'step_000000', note: s }, escaped),
          '/note',
        );
        if (!input) return false;
        const { steps } = (await api.call(workflowRun, {
          op: 'start',
          planId: runPlan!.id,
        } as never)) as { steps: { id: string }[] };
        const id = steps[0]!.id;
        await api.call(workflowStep, { ...input, id } as never);
        sameText(
          ((await api.call(workflowStep, { op: 'get', id } as never)) as { step: { note: string } })
            .step.note,
          s,
          `workflow step ${op} note`,
        );
        sameText(column('wf_steps', 'note', id), s, 'wf_steps.note');
        return true;
      },
    });
  }

  return fields;
}
