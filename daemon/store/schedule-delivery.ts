import { setTimeout as sleep } from 'node:timers/promises';
import { countOccurrences, nextOccurrence } from '../../lib/cron.js';
import { LIMITS, clipJson } from '../../catalog/limits.js';
import { ExecError } from '../errors/exec-error.js';
import { newId } from './ids.js';
import type { MessageApi } from './messages.js';
import type { ScheduleRow } from './schedule-rows.js';
import type { SqlStore, SqlTx } from './sql.js';

/** A run more than this after its due time is marked late (the timer itself fires within milliseconds). */
export const LATE_AFTER_MS = 1_000;

export interface DeliveryOutcome {
  readonly scheduleId: string;
  readonly delivered: boolean;
  readonly late: boolean;
  readonly missed: number;
}

interface ScheduleDeliveryOptions {
  /**
   * Fault injection (tests): when > 0, each delivery waits this long inside
   * its transaction, after the message is written and before the commit, so
   * a test can kill the daemon while it holds a due schedule.
   */
  readonly holdMs?: number;
}

type Due = { id: string; next_due_at: number };

const COLUMNS =
  'id, server_id, created_by, target, content, at, cron, time_zone, status, next_due_at, revision, created_at, updated_at';

/**
 * The store side of delivery: which schedules are due, and one run applied
 * atomically. The message, the run record and the schedule's next due time
 * commit in one transaction, so a crash delivers an occurrence either
 * completely or not at all, and a restart never delivers it twice.
 *
 * Several daemons may share one PostgreSQL database: the transaction first
 * claims the due row (SELECT … FOR UPDATE SKIP LOCKED), so a row another
 * daemon is delivering is skipped, and a daemon that dies mid-delivery leaves
 * the row to the others (its transaction rolls back). The advance stays
 * guarded on the due time it read, so a delivery that lost a race changes
 * nothing.
 *
 * Catch-up rule: however many occurrences passed while the daemon was down,
 * a schedule gets exactly one run for the whole missed window, due at the
 * first missed occurrence, marked late, with `missed` counting the
 * occurrences it stands for; a repeating schedule then continues from the
 * first occurrence after now.
 */
export class ScheduleDelivery {
  private readonly holdMs: number;

  constructor(
    private readonly sql: SqlStore,
    private readonly messages: MessageApi,
    opts: ScheduleDeliveryOptions = {},
  ) {
    this.holdMs = opts.holdMs ?? 0;
  }

  /** The earliest due time of any active schedule, or null. */
  async nextDueAt(): Promise<number | null> {
    const r = await this.sql.get<{ at: number | null }>(
      "SELECT MIN(next_due_at) AS at FROM scheduled_messages WHERE status = 'active'",
    );
    return r?.at ?? null;
  }

  /**
   * Runs every schedule due at `now` (in batches, each continuing after the
   * last row of the one before, so a row skipped because another daemon
   * holds it is not asked for again), one run each.
   */
  async runDue(now: number, batch = 100): Promise<DeliveryOutcome[]> {
    const out: DeliveryOutcome[] = [];
    let after: { due: number; id: string } | null = null;
    for (;;) {
      const rows: Due[] =
        after === null
          ? await this.sql.all<Due>(
              "SELECT id, next_due_at FROM scheduled_messages WHERE status = 'active' AND next_due_at <= ? ORDER BY next_due_at, id LIMIT ?",
              [now, batch],
            )
          : await this.sql.all<Due>(
              `SELECT id, next_due_at FROM scheduled_messages WHERE status = 'active' AND next_due_at <= ?
             AND (next_due_at > ? OR (next_due_at = ? AND id > ?)) ORDER BY next_due_at, id LIMIT ?`,
              [now, after.due, after.due, after.id, batch],
            );
      for (const row of rows) {
        const r = await this.runOne(row.id, now);
        if (r) out.push(r);
      }
      const last = rows[rows.length - 1];
      if (rows.length < batch || !last) return out;
      after = { due: last.next_due_at, id: last.id };
    }
  }

  private async runOne(id: string, now: number): Promise<DeliveryOutcome | null> {
    return this.sql.tx(async (q): Promise<DeliveryOutcome | null> => {
      // The claim: on PostgreSQL a row another daemon holds is skipped, not waited for.
      const row = await q.get<ScheduleRow>(
        `SELECT ${COLUMNS} FROM scheduled_messages WHERE id = ? AND status = 'active' AND next_due_at <= ?${q.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
        [id, now],
      );
      if (!row) return null;
      const dueAt = row.next_due_at!;
      const rule =
        row.cron !== null && row.time_zone !== null
          ? { cron: row.cron, timeZone: row.time_zone }
          : null;
      const missed = rule ? countOccurrences(rule, dueAt, now) : 1;
      const next = rule ? nextOccurrence(rule, now) : null;
      const status = next === null ? 'completed' : 'active';
      // Guarded on the due time it read: a concurrent cancel or a second delivery changes nothing.
      const moved = await q.run(
        "UPDATE scheduled_messages SET next_due_at = ?, status = ?, revision = revision + (CASE WHEN status = ? THEN 0 ELSE 1 END), updated_at = CASE WHEN status = ? THEN updated_at ELSE ? END WHERE id = ? AND status = 'active' AND next_due_at = ?",
        [next, status, status, status, now, row.id, dueAt],
      );
      if (moved.changes === 0) return null;
      const sent = await this.deliver(q, row);
      const delivered = typeof sent === 'string' ? sent : null;
      const error = typeof sent === 'string' ? null : sent.error;
      const late = now - dueAt > LATE_AFTER_MS;
      await q.run(
        `INSERT INTO scheduled_runs (id, schedule_id, server_id, due_at, attempted_at, outcome, late, missed, message_id, error, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          newId('run'),
          row.id,
          row.server_id,
          dueAt,
          now,
          delivered ? 'delivered' : 'failed',
          late ? 1 : 0,
          missed,
          delivered,
          error,
          now,
        ],
      );
      if (this.holdMs > 0) await sleep(this.holdMs);
      return { scheduleId: row.id, delivered: delivered !== null, late, missed };
    });
  }

  /** Writes the message under a savepoint: a failed send leaves the run record and the advance in place. */
  private async deliver(q: SqlTx, row: ScheduleRow): Promise<string | { error: string }> {
    const sent = await q.attempt(
      async (sp) =>
        (
          await this.messages.send(
            {
              serverId: row.server_id,
              target: row.target,
              author: row.created_by,
              content: row.content,
            },
            sp,
          )
        ).id,
    );
    if (sent.ok) return sent.value;
    const err = sent.error;
    // Cut to the bound the run schema states (an error message can quote input).
    return {
      error: clipJson(
        err instanceof ExecError
          ? `${err.code}: ${err.message}`
          : 'internal: the message could not be stored',
        LIMITS.runError,
      ),
    };
  }
}
