import { LIMITS, clipJson } from '../../catalog/limits.js';
import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { workflowPlan } from '../../catalog/domains/workflow.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from '../store/context.js';
import { newId } from '../store/ids.js';
import { createdAtPage } from '../store/keyset-page.js';
import type { Caller } from '../store/server-api.js';
import type { Sql } from '../store/sql.js';
import { runOp } from './run-op.js';
import { planOf, versionOf, type PlanRow, type StepDef, type VersionRow } from './rows.js';

type In = InputOf<typeof workflowPlan>;
type Out = OutputOf<typeof workflowPlan>;

/**
 * The problems a validate op returns: at most LIMITS.validationProblems, each
 * path and message cut to its schema bound, so the result always fits.
 */
export function boundedProblems(
  problems: readonly { path: string; message: string }[],
): { path: string; message: string }[] {
  return problems.slice(0, LIMITS.validationProblems).map((p) => ({
    path: clipJson(p.path, LIMITS.validationPath),
    message: clipJson(p.message, LIMITS.validationMessage),
  }));
}

/** Problems of a step list, as validate reports them and create/update refuse them. */
function stepProblems(
  steps: readonly { name: string }[] | undefined,
): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  if (!steps || steps.length === 0)
    return [{ path: '/steps', message: 'a plan needs at least one step' }];
  const seen = new Map<string, number>();
  steps.forEach((s, i) => {
    const name = s.name.trim();
    if (name === '')
      problems.push({ path: `/steps/${i}/name`, message: 'a step name cannot be blank' });
    const prior = seen.get(name.toLowerCase());
    if (prior !== undefined)
      problems.push({ path: `/steps/${i}/name`, message: `the step name repeats step ${prior}` });
    seen.set(name.toLowerCase(), i);
  });
  return problems;
}

function checkSteps(steps: In['steps']): StepDef[] {
  const problems = stepProblems(steps);
  if (problems.length > 0)
    throw new ExecError('validation_failed', 'the steps are not a valid plan', {
      details: problems,
    });
  return steps!.map((s) => ({ name: s.name.trim(), description: s.description ?? '' }));
}

const BY_ID = 'SELECT * FROM wf_plans WHERE id = ? AND server_id = ?';
const VERSION = 'SELECT * FROM wf_plan_versions WHERE plan_id = ? AND version = ?';
const INSERT_PLAN = `INSERT INTO wf_plans (id, server_id, name, description, status, latest_version, published_version, revision, created_at, updated_at)
  VALUES (?, ?, ?, ?, 'draft', 1, NULL, 1, ?, ?)`;
const INSERT_VERSION =
  'INSERT INTO wf_plan_versions (plan_id, version, steps, created_at) VALUES (?, ?, ?, ?)';
const UPDATE = `UPDATE wf_plans SET name = ?, description = ?, status = ?, latest_version = ?, published_version = ?,
  revision = revision + 1, updated_at = ? WHERE id = ?`;

/** Versioned plans: every change of steps is a new version; runs start from the published one. */
export class WorkflowPlans {
  constructor(private readonly s: StoreContext) {}

  /** A plan of this server, or not_found. */
  async plan(q: Sql, serverId: string, id: string): Promise<PlanRow> {
    const row = await q.get<PlanRow>(BY_ID, [id, serverId]);
    if (!row)
      throw new ExecError('not_found', `plan ${id} not found`, {
        hint: 'List plans with workflow plan {"op":"list"}.',
      });
    return row;
  }

  async version(q: Sql, planId: string, version: number): Promise<StepDef[]> {
    const row = await q.get<VersionRow>(VERSION, [planId, version]);
    if (!row) throw new ExecError('not_found', `plan ${planId} has no version ${version}`);
    return JSON.parse(row.steps) as StepDef[];
  }

  call(c: Caller, input: In): Promise<Out> {
    return runOp(this.s, c, workflowPlan, input as Record<string, unknown>, (q) =>
      this.apply(q, c, input),
    );
  }

  private async apply(q: Sql, c: Caller, input: In): Promise<Out> {
    const now = this.s.now();
    switch (input.op) {
      case 'list': {
        return this.list(q, c, input);
      }
      case 'show': {
        const plan = await this.plan(q, c.serverId, input.id!);
        return {
          plan: planOf(plan),
          version: versionOf((await q.get<VersionRow>(VERSION, [plan.id, plan.latest_version]))!),
        };
      }
      case 'version': {
        const plan = await this.plan(q, c.serverId, input.id!);
        const row = await q.get<VersionRow>(VERSION, [plan.id, input.version!]);
        if (!row)
          throw new ExecError('not_found', `plan ${plan.id} has no version ${input.version}`, {
            hint: `Versions run from 1 to ${plan.latest_version}.`,
          });
        return { version: versionOf(row) };
      }
      case 'validate': {
        const problems = stepProblems(input.steps);
        return {
          validation: { valid: problems.length === 0, problems: boundedProblems(problems) },
        };
      }
      case 'create': {
        const steps = checkSteps(input.steps);
        const id = newId('plan');
        await q.run(INSERT_PLAN, [id, c.serverId, input.name!, input.description ?? '', now, now]);
        await q.run(INSERT_VERSION, [id, 1, JSON.stringify(steps), now]);
        return this.shown(q, c, id, 1);
      }
      case 'update': {
        const p = await this.live(q, c, input.id!);
        let latest = p.latest_version;
        if (input.steps !== undefined) {
          latest += 1;
          await q.run(INSERT_VERSION, [p.id, latest, JSON.stringify(checkSteps(input.steps)), now]);
        }
        await q.run(UPDATE, [
          input.name ?? p.name,
          input.description ?? p.description,
          p.status,
          latest,
          p.published_version,
          now,
          p.id,
        ]);
        return this.shown(q, c, p.id, latest);
      }
      case 'publish': {
        const p = await this.live(q, c, input.id!);
        const v = input.version ?? p.latest_version;
        await this.version(q, p.id, v);
        await q.run(UPDATE, [p.name, p.description, 'published', p.latest_version, v, now, p.id]);
        return { plan: planOf((await q.get<PlanRow>(BY_ID, [p.id, c.serverId]))!) };
      }
      case 'archive': {
        const p = await this.live(q, c, input.id!);
        await q.run(UPDATE, [
          p.name,
          p.description,
          'archived',
          p.latest_version,
          p.published_version,
          now,
          p.id,
        ]);
        return { plan: planOf((await q.get<PlanRow>(BY_ID, [p.id, c.serverId]))!) };
      }
    }
  }

  /** A plan and one of its versions, as written. */
  private async shown(q: Sql, c: Caller, id: string, version: number): Promise<Out> {
    const plan = (await q.get<PlanRow>(BY_ID, [id, c.serverId]))!;
    return {
      plan: planOf(plan),
      version: versionOf((await q.get<VersionRow>(VERSION, [id, version]))!),
    };
  }

  /** A plan that may still change: archived plans are final. */
  private async live(q: Sql, c: Caller, id: string): Promise<PlanRow> {
    const p = await this.plan(q, c.serverId, id);
    if (p.status === 'archived')
      throw new ExecError('invalid_transition', `plan ${id} is archived`);
    return p;
  }

  private async list(q: Sql, c: Caller, input: In): Promise<Out> {
    const { items, ...more } = await createdAtPage<PlanRow>(
      q,
      this.s.cursors,
      { action: 'workflow/plan.list', scope: c.serverId, filter: { status: input.status } },
      input,
      'SELECT * FROM wf_plans',
      [
        ['server_id = ?', c.serverId],
        ...(input.status === undefined ? [] : [['status = ?', input.status] as const]),
      ],
    );
    return { plans: items.map(planOf), ...more };
  }
}
