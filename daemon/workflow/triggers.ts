import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { workflowTrigger } from '../../catalog/domains/workflow.js';
import { countOccurrences, nextOccurrence } from '../../lib/cron.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from '../store/context.js';
import { newId } from '../store/ids.js';
import { createdAtPage } from '../store/keyset-page.js';
import { LATE_AFTER_MS, type DeliveryOutcome } from '../store/schedule-delivery.js';
import type { Caller } from '../store/server-api.js';
import type { Sql, SqlTx } from '../store/sql.js';
import { runOp } from './run-op.js';
import type { WorkflowPlans } from './plans.js';
import { boundedProblems } from './plans.js';
import type { WorkflowRuns } from './runs.js';
import { triggerOf, type PlanRow, type TriggerRow } from './rows.js';
import { shapeProblems, type Shape } from './trigger-shape.js';

type In = InputOf<typeof workflowTrigger>;
type Out = OutputOf<typeof workflowTrigger>;

const BY_ID = 'SELECT * FROM wf_triggers WHERE id = ? AND server_id = ?';
const INSERT = `INSERT INTO wf_triggers (id, server_id, plan_id, kind, cron, time_zone, target, status, next_fire_at, revision, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, 'enabled', ?, 1, ?, ?)`;
const UPDATE =
  'UPDATE wf_triggers SET cron = ?, time_zone = ?, target = ?, status = ?, next_fire_at = ?, revision = revision + 1, updated_at = ? WHERE id = ?';
const DUE =
  "SELECT id FROM wf_triggers WHERE status = 'enabled' AND kind = 'schedule' AND next_fire_at <= ? ORDER BY next_fire_at, id LIMIT ?";
/** One due trigger, read again inside the transaction that fires it. */
const DUE_ONE =
  "SELECT * FROM wf_triggers WHERE id = ? AND status = 'enabled' AND kind = 'schedule' AND next_fire_at <= ?";
const NEXT_DUE =
  "SELECT MIN(next_fire_at) AS at FROM wf_triggers WHERE status = 'enabled' AND kind = 'schedule'";
const ADVANCE =
  "UPDATE wf_triggers SET next_fire_at = ? WHERE id = ? AND status = 'enabled' AND next_fire_at = ?";
const BY_TARGET =
  "SELECT * FROM wf_triggers WHERE server_id = ? AND target = ? AND status = 'enabled' AND kind = 'message' ORDER BY created_at, id";
/** Due schedule triggers looked at per runDue; the scheduler runs again at once for the rest. */
const DUE_BATCH = 100;

/** Triggers start runs: by hand (run start {triggerId}), on a cron rule, or on a message to a target. */
export class WorkflowTriggers {
  /** Called after a committed change of triggers (the scheduler re-arms). */
  onChange: () => void = () => {};

  constructor(
    private readonly s: StoreContext,
    private readonly plans: WorkflowPlans,
    private readonly runs: WorkflowRuns,
  ) {}

  private async trigger(q: Sql, serverId: string, id: string): Promise<TriggerRow> {
    const row = await q.get<TriggerRow>(BY_ID, [id, serverId]);
    if (!row)
      throw new ExecError('not_found', `trigger ${id} not found`, {
        hint: 'List triggers with workflow trigger {"op":"list"}.',
      });
    return row;
  }

  /** The plan a manual trigger starts (for run start {triggerId}). */
  async manualPlan(q: Sql, c: Caller, id: string): Promise<PlanRow> {
    const t = await this.trigger(q, c.serverId, id);
    if (t.kind !== 'manual')
      throw new ExecError(
        'invalid_transition',
        `trigger ${id} is a ${t.kind} trigger; only manual triggers start runs by hand`,
      );
    if (t.status !== 'enabled')
      throw new ExecError('invalid_transition', `trigger ${id} is ${t.status}`);
    return this.plans.plan(q, c.serverId, t.plan_id);
  }

  private firstFire(t: Pick<TriggerRow, 'kind' | 'cron' | 'time_zone'>): number | null {
    return t.kind === 'schedule'
      ? nextOccurrence({ cron: t.cron!, timeZone: t.time_zone! }, this.s.now())
      : null;
  }

  async call(c: Caller, input: In): Promise<Out> {
    const out = await runOp(this.s, c, workflowTrigger, input as Record<string, unknown>, (q) =>
      this.apply(q, c, input),
    );
    if (input.op !== 'list' && input.op !== 'show' && input.op !== 'validate') this.onChange();
    return out;
  }

  private async apply(q: Sql, c: Caller, input: In): Promise<Out> {
    const now = this.s.now();
    switch (input.op) {
      case 'list':
        return this.list(q, c, input);
      case 'show':
        return { trigger: triggerOf(await this.trigger(q, c.serverId, input.id!)) };
      case 'validate': {
        const problems = shapeProblems(input as Shape);
        return {
          validation: { valid: problems.length === 0, problems: boundedProblems(problems) },
        };
      }
      case 'create': {
        const plan = await this.plans.plan(q, c.serverId, input.planId!);
        if (plan.status === 'archived')
          throw new ExecError('invalid_transition', `plan ${plan.id} is archived`);
        const problems = shapeProblems(input as Shape);
        if (problems.length > 0)
          throw new ExecError('validation_failed', 'the trigger is not valid', {
            details: problems,
          });
        const row = {
          kind: input.kind!,
          cron: input.cron ?? null,
          time_zone: input.timeZone ?? null,
        };
        const id = newId('trig');
        await q.run(INSERT, [
          id,
          c.serverId,
          plan.id,
          row.kind,
          row.cron,
          row.time_zone,
          input.target ?? null,
          this.firstFire(row),
          now,
          now,
        ]);
        return { trigger: triggerOf((await q.get<TriggerRow>(BY_ID, [id, c.serverId]))!) };
      }
      case 'update': {
        const t = await this.trigger(q, c.serverId, input.id!);
        if (t.status === 'archived')
          throw new ExecError('invalid_transition', `trigger ${t.id} is archived`);
        const merged = {
          kind: t.kind,
          cron: input.cron ?? t.cron ?? undefined,
          timeZone: input.timeZone ?? t.time_zone ?? undefined,
          target: input.target ?? t.target ?? undefined,
        };
        const problems = shapeProblems(merged);
        if (problems.length > 0)
          throw new ExecError('validation_failed', 'the trigger is not valid', {
            details: problems,
          });
        const row = { kind: t.kind, cron: merged.cron ?? null, time_zone: merged.timeZone ?? null };
        const next = t.status === 'enabled' ? this.firstFire(row) : null;
        await q.run(UPDATE, [
          row.cron,
          row.time_zone,
          merged.target ?? null,
          t.status,
          next,
          now,
          t.id,
        ]);
        return { trigger: triggerOf((await q.get<TriggerRow>(BY_ID, [t.id, c.serverId]))!) };
      }
      case 'enable':
      case 'disable':
      case 'archive': {
        const t = await this.trigger(q, c.serverId, input.id!);
        const from =
          input.op === 'enable'
            ? ['disabled']
            : input.op === 'disable'
              ? ['enabled']
              : ['enabled', 'disabled'];
        if (!from.includes(t.status))
          throw new ExecError(
            'invalid_transition',
            `trigger ${t.id} is ${t.status}; ${input.op} needs ${from.join(' or ')}`,
          );
        const status =
          input.op === 'enable' ? 'enabled' : input.op === 'disable' ? 'disabled' : 'archived';
        await q.run(UPDATE, [
          t.cron,
          t.time_zone,
          t.target,
          status,
          status === 'enabled' ? this.firstFire(t) : null,
          now,
          t.id,
        ]);
        return { trigger: triggerOf((await q.get<TriggerRow>(BY_ID, [t.id, c.serverId]))!) };
      }
    }
  }

  private async list(q: Sql, c: Caller, input: In): Promise<Out> {
    const { items, ...more } = await createdAtPage<TriggerRow>(
      q,
      this.s.cursors,
      { action: 'workflow/trigger.list', scope: c.serverId, filter: { planId: input.planId } },
      input,
      'SELECT * FROM wf_triggers',
      [
        ['server_id = ?', c.serverId],
        ...(input.planId === undefined ? [] : [['plan_id = ?', input.planId] as const]),
      ],
    );
    return { triggers: items.map(triggerOf), ...more };
  }

  /** Scheduler source: the earliest fire time of an enabled schedule trigger. */
  async nextDueAt(): Promise<number | null> {
    return (await this.s.sql.get<{ at: number | null }>(NEXT_DUE))?.at ?? null;
  }

  /**
   * Scheduler source: fires due schedule triggers, one run per trigger for a
   * missed window (the catch-up rule of schedules). Each firing is its own
   * transaction that claims the trigger before it starts the run, so of
   * several daemons sharing a database exactly one fires each due time.
   */
  async runDue(now: number): Promise<DeliveryOutcome[]> {
    const out: DeliveryOutcome[] = [];
    for (const { id } of await this.s.sql.all<{ id: string }>(DUE, [now, DUE_BATCH])) {
      const r = await this.s.sql.tx((q) => this.fireDue(q, id, now));
      if (r) out.push(r);
    }
    return out;
  }

  /**
   * Claims one due trigger and fires it: null when it is no longer due or
   * another daemon has it. On PostgreSQL the row is locked, and a row locked
   * by another daemon's firing is skipped rather than waited for; the update
   * is guarded on the due time read, so a firing that committed in between
   * (or a change of the trigger) leaves nothing to claim.
   */
  private async fireDue(q: SqlTx, id: string, now: number): Promise<DeliveryOutcome | null> {
    const t = await q.get<TriggerRow>(
      q.dialect === 'postgres' ? `${DUE_ONE} FOR UPDATE SKIP LOCKED` : DUE_ONE,
      [id, now],
    );
    if (!t) return null;
    const rule = { cron: t.cron!, timeZone: t.time_zone! };
    const dueAt = t.next_fire_at!;
    if ((await q.run(ADVANCE, [nextOccurrence(rule, now), t.id, dueAt])).changes === 0) return null;
    const missed = countOccurrences(rule, dueAt, now);
    const late = now - dueAt > LATE_AFTER_MS;
    const started = await this.fire(
      q,
      t,
      `schedule due ${new Date(dueAt).toISOString()}${late ? `, late, stands for ${missed} occurrence(s)` : ''}`,
    );
    return { scheduleId: t.id, delivered: started, late, missed };
  }

  /** A message reached a target: start a run for each enabled message trigger on it, inside the message's transaction. */
  async onMessage(q: SqlTx, serverId: string, target: string, messageId: string): Promise<void> {
    for (const t of await q.all<TriggerRow>(BY_TARGET, [serverId, target]))
      await this.fire(q, t, `message ${messageId} to ${target}`);
  }

  /** Starts one run; a plan that is not runnable (unpublished, archived) is skipped, not an error for the sender. */
  private async fire(q: Sql, t: TriggerRow, detail: string): Promise<boolean> {
    try {
      await this.runs.start(
        q,
        await this.plans.plan(q, t.server_id, t.plan_id),
        t.id,
        `trigger:${t.id}`,
        detail,
      );
      return true;
    } catch (err) {
      if (err instanceof ExecError) return false;
      throw err;
    }
  }
}
