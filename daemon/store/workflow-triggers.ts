import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { workflowTrigger } from '../../catalog/domains/workflow.js';
import { checkCronRule, countOccurrences, nextOccurrence } from '../../lib/cron.js';
import { ExecError } from '../errors.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { createdAtQueries, keysetPage, type CreatedPageQueries } from './keyset-page.js';
import { LATE_AFTER_MS, type DeliveryOutcome } from './schedule-delivery.js';
import type { Caller } from './server-api.js';
import { checkOpFields, runOp } from './workflow-ops.js';
import type { WorkflowPlans } from './workflow-plans.js';
import { boundedProblems } from './workflow-plans.js';
import type { WorkflowRuns } from './workflow-runs.js';
import { triggerOf, type PlanRow, type TriggerRow } from './workflow-rows.js';

type In = InputOf<typeof workflowTrigger>;
type Out = OutputOf<typeof workflowTrigger>;

interface Shape { kind: TriggerRow['kind']; cron?: string | undefined; timeZone?: string | undefined; target?: string | undefined }

/** What a trigger of each kind needs; returned as problems so validate can report them all. */
function shapeProblems(t: Shape): { path: string; message: string }[] {
  const p: { path: string; message: string }[] = [];
  const only = (fields: (keyof Shape)[]) => {
    for (const f of ['cron', 'timeZone', 'target'] as const) {
      if (!fields.includes(f) && t[f] !== undefined) p.push({ path: `/${f}`, message: `a ${t.kind} trigger does not take ${f}` });
    }
  };
  if (t.kind === 'schedule') {
    only(['cron', 'timeZone']);
    if (t.cron === undefined) p.push({ path: '/cron', message: 'a schedule trigger needs cron' });
    if (t.timeZone === undefined) p.push({ path: '/timeZone', message: 'a schedule trigger needs an explicit timeZone' });
    if (t.cron !== undefined && t.timeZone !== undefined) {
      try {
        checkCronRule({ cron: t.cron, timeZone: t.timeZone });
      } catch (err) {
        p.push({ path: '/cron', message: `invalid cron rule or time zone: ${(err as Error).message}` });
      }
    }
  } else if (t.kind === 'message') {
    only(['target']);
    if (t.target === undefined) p.push({ path: '/target', message: 'a message trigger needs target' });
  } else {
    only([]);
  }
  return p;
}

/** Triggers start runs: by hand (run start {triggerId}), on a cron rule, or on a message to a target. */
export class WorkflowTriggers {
  private readonly byId;
  private readonly insert;
  private readonly update;
  private readonly due;
  private readonly nextDue;
  private readonly advance;
  private readonly byTarget;
  private readonly lists = new Map<string, CreatedPageQueries<TriggerRow>>();
  onChange: () => void = () => {};

  constructor(private readonly s: StoreContext, private readonly plans: WorkflowPlans, private readonly runs: WorkflowRuns) {
    this.byId = s.db.prepare<[string, string], TriggerRow>('SELECT * FROM wf_triggers WHERE id = ? AND server_id = ?');
    this.insert = s.db.prepare(
      `INSERT INTO wf_triggers (id, server_id, plan_id, kind, cron, time_zone, target, status, next_fire_at, revision, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'enabled', ?, 1, ?, ?)`,
    );
    this.update = s.db.prepare(
      'UPDATE wf_triggers SET cron = ?, time_zone = ?, target = ?, status = ?, next_fire_at = ?, revision = revision + 1, updated_at = ? WHERE id = ?',
    );
    this.due = s.db.prepare<[number, number], TriggerRow>(
      "SELECT * FROM wf_triggers WHERE status = 'enabled' AND kind = 'schedule' AND next_fire_at <= ? ORDER BY next_fire_at, id LIMIT ?",
    );
    this.nextDue = s.db.prepare<[], { at: number | null }>("SELECT MIN(next_fire_at) AS at FROM wf_triggers WHERE status = 'enabled' AND kind = 'schedule'");
    this.advance = s.db.prepare("UPDATE wf_triggers SET next_fire_at = ? WHERE id = ? AND status = 'enabled' AND next_fire_at = ?");
    this.byTarget = s.db.prepare<[string, string], TriggerRow>(
      "SELECT * FROM wf_triggers WHERE server_id = ? AND target = ? AND status = 'enabled' AND kind = 'message' ORDER BY created_at, id",
    );
  }

  private trigger(serverId: string, id: string): TriggerRow {
    const row = this.byId.get(id, serverId);
    if (!row) throw new ExecError('not_found', `trigger ${id} not found`, { hint: 'List triggers with workflow trigger {"op":"list"}.' });
    return row;
  }

  /** The plan a manual trigger starts (for run start {triggerId}). */
  manualPlan(c: Caller, id: string): PlanRow {
    const t = this.trigger(c.serverId, id);
    if (t.kind !== 'manual') throw new ExecError('invalid_transition', `trigger ${id} is a ${t.kind} trigger; only manual triggers start runs by hand`);
    if (t.status !== 'enabled') throw new ExecError('invalid_transition', `trigger ${id} is ${t.status}`);
    return this.plans.plan(c.serverId, t.plan_id);
  }

  private firstFire(t: Pick<TriggerRow, 'kind' | 'cron' | 'time_zone'>): number | null {
    return t.kind === 'schedule' ? nextOccurrence({ cron: t.cron!, timeZone: t.time_zone! }, this.s.now()) : null;
  }

  call(c: Caller, input: In): Out {
    const out = runOp(this.s, c, 'trigger', input as Record<string, unknown>, () => this.apply(c, input));
    if (input.op !== 'list' && input.op !== 'show' && input.op !== 'validate') this.onChange();
    return out;
  }

  private apply(c: Caller, input: In): Out {
    const now = this.s.now();
    switch (input.op) {
      case 'list':
        checkOpFields(input, [], ['planId'], true);
        return this.list(c, input);
      case 'show':
        checkOpFields(input, ['id'], []);
        return { trigger: triggerOf(this.trigger(c.serverId, input.id!)) };
      case 'validate': {
        checkOpFields(input, ['kind'], ['cron', 'timeZone', 'target', 'planId']);
        const problems = shapeProblems(input as Shape);
        return { validation: { valid: problems.length === 0, problems: boundedProblems(problems) } };
      }
      case 'create': {
        checkOpFields(input, ['planId', 'kind'], ['cron', 'timeZone', 'target']);
        const plan = this.plans.plan(c.serverId, input.planId!);
        if (plan.status === 'archived') throw new ExecError('invalid_transition', `plan ${plan.id} is archived`);
        const problems = shapeProblems(input as Shape);
        if (problems.length > 0) throw new ExecError('validation_failed', 'the trigger is not valid', { details: problems });
        const row = { kind: input.kind!, cron: input.cron ?? null, time_zone: input.timeZone ?? null };
        const id = newId('trig');
        this.insert.run(id, c.serverId, plan.id, row.kind, row.cron, row.time_zone, input.target ?? null, this.firstFire(row), now, now);
        return { trigger: triggerOf(this.byId.get(id, c.serverId)!) };
      }
      case 'update': {
        checkOpFields(input, ['id'], ['cron', 'timeZone', 'target']);
        const t = this.trigger(c.serverId, input.id!);
        if (t.status === 'archived') throw new ExecError('invalid_transition', `trigger ${t.id} is archived`);
        const merged = { kind: t.kind, cron: input.cron ?? t.cron ?? undefined, timeZone: input.timeZone ?? t.time_zone ?? undefined, target: input.target ?? t.target ?? undefined };
        const problems = shapeProblems(merged);
        if (problems.length > 0) throw new ExecError('validation_failed', 'the trigger is not valid', { details: problems });
        const row = { kind: t.kind, cron: merged.cron ?? null, time_zone: merged.timeZone ?? null };
        const next = t.status === 'enabled' ? this.firstFire(row) : null;
        this.update.run(row.cron, row.time_zone, merged.target ?? null, t.status, next, now, t.id);
        return { trigger: triggerOf(this.byId.get(t.id, c.serverId)!) };
      }
      case 'enable':
      case 'disable':
      case 'archive': {
        checkOpFields(input, ['id'], []);
        const t = this.trigger(c.serverId, input.id!);
        const from = input.op === 'enable' ? ['disabled'] : input.op === 'disable' ? ['enabled'] : ['enabled', 'disabled'];
        if (!from.includes(t.status)) throw new ExecError('invalid_transition', `trigger ${t.id} is ${t.status}; ${input.op} needs ${from.join(' or ')}`);
        const status = input.op === 'enable' ? 'enabled' : input.op === 'disable' ? 'disabled' : 'archived';
        this.update.run(t.cron, t.time_zone, t.target, status, status === 'enabled' ? this.firstFire(t) : null, now, t.id);
        return { trigger: triggerOf(this.byId.get(t.id, c.serverId)!) };
      }
    }
  }

  private list(c: Caller, input: In): Out {
    const key = input.planId === undefined ? 'all' : 'plan';
    const q = createdAtQueries<TriggerRow>(this.s.db, this.lists, 'SELECT * FROM wf_triggers', `server_id = ?${key === 'plan' ? ' AND plan_id = ?' : ''}`);
    const args: unknown[] = key === 'plan' ? [c.serverId, input.planId] : [c.serverId];
    const { items, ...more } = keysetPage<TriggerRow>(
      this.s.cursors, { action: 'workflow/trigger.list', scope: c.serverId, filter: { planId: input.planId } }, input,
      (r) => [r.created_at, r.id],
      (n) => q.first.all(...args, n),
      (at, id, n) => q.after.all(...args, at, at, id, n),
    );
    return { triggers: items.map(triggerOf), ...more };
  }

  /** Scheduler source: the earliest fire time of an enabled schedule trigger. */
  nextDueAt(): number | null {
    return this.nextDue.get()?.at ?? null;
  }

  /** Scheduler source: fires due schedule triggers, one run per trigger for a missed window (the catch-up rule of schedules). */
  runDue(now: number): DeliveryOutcome[] {
    const out: DeliveryOutcome[] = [];
    for (const t of this.due.all(now, 100)) {
      const r = this.s.db.transaction((): DeliveryOutcome | null => {
        const rule = { cron: t.cron!, timeZone: t.time_zone! };
        const dueAt = t.next_fire_at!;
        if (this.advance.run(nextOccurrence(rule, now), t.id, dueAt).changes === 0) return null;
        const missed = countOccurrences(rule, dueAt, now);
        const late = now - dueAt > LATE_AFTER_MS;
        const started = this.fire(t, `schedule due ${new Date(dueAt).toISOString()}${late ? `, late, stands for ${missed} occurrence(s)` : ''}`);
        return { scheduleId: t.id, delivered: started, late, missed };
      }).immediate();
      if (r) out.push(r);
    }
    return out;
  }

  /** A message reached a target: start a run for each enabled message trigger on it. */
  onMessage(serverId: string, target: string, messageId: string): void {
    for (const t of this.byTarget.all(serverId, target)) this.fire(t, `message ${messageId} to ${target}`);
  }

  /** Starts one run; a plan that is not runnable (unpublished, archived) is skipped, not an error for the sender. */
  private fire(t: TriggerRow, detail: string): boolean {
    try {
      this.runs.start(this.plans.plan(t.server_id, t.plan_id), t.id, `trigger:${t.id}`, detail);
      return true;
    } catch (err) {
      if (err instanceof ExecError) return false;
      throw err;
    }
  }
}

