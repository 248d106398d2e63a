import { countOccurrences, nextOccurrence } from '../../lib/cron.js';
import { LIMITS, clipJson } from '../../catalog/limits.js';
import { ExecError } from '../errors.js';
import type { Db } from './db.js';
import { newId } from './ids.js';
import type { MessageApi } from './messages.js';
import type { ScheduleRow } from './schedule-rows.js';

/** A run more than this after its due time is marked late (the timer itself fires within milliseconds). */
export const LATE_AFTER_MS = 1_000;

export interface DeliveryOutcome {
  readonly scheduleId: string;
  readonly delivered: boolean;
  readonly late: boolean;
  readonly missed: number;
}

/**
 * The store side of delivery: which schedules are due, and one run applied
 * atomically. The message, the run record and the schedule's next due time
 * commit in one transaction, so a crash delivers an occurrence either
 * completely or not at all, and a restart never delivers it twice.
 *
 * Catch-up rule: however many occurrences passed while the daemon was down,
 * a schedule gets exactly one run for the whole missed window, due at the
 * first missed occurrence, marked late, with `missed` counting the
 * occurrences it stands for; a repeating schedule then continues from the
 * first occurrence after now.
 */
export class ScheduleDelivery {
  private readonly due;
  private readonly nextDue;
  private readonly insertRun;
  private readonly advance;

  constructor(private readonly db: Db, private readonly messages: MessageApi) {
    this.due = db.prepare<[number, number], ScheduleRow>(
      "SELECT * FROM scheduled_messages WHERE status = 'active' AND next_due_at <= ? ORDER BY next_due_at, id LIMIT ?",
    );
    this.nextDue = db.prepare<[], { at: number | null }>("SELECT MIN(next_due_at) AS at FROM scheduled_messages WHERE status = 'active'");
    this.insertRun = db.prepare(
      `INSERT INTO scheduled_runs (id, schedule_id, server_id, due_at, attempted_at, outcome, late, missed, message_id, error, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.advance = db.prepare(
      "UPDATE scheduled_messages SET next_due_at = ?, status = ?, revision = revision + (CASE WHEN status = ? THEN 0 ELSE 1 END), updated_at = CASE WHEN status = ? THEN updated_at ELSE ? END WHERE id = ? AND status = 'active' AND next_due_at = ?",
    );
  }

  /** The earliest due time of any active schedule, or null. */
  nextDueAt(): number | null {
    return this.nextDue.get()?.at ?? null;
  }

  /** Runs every schedule due at `now` (in batches), one run each. */
  runDue(now: number, batch = 100): DeliveryOutcome[] {
    const out: DeliveryOutcome[] = [];
    for (;;) {
      const rows = this.due.all(now, batch);
      for (const row of rows) {
        const r = this.runOne(row, now);
        if (r) out.push(r);
      }
      if (rows.length < batch) return out;
    }
  }

  private runOne(row: ScheduleRow, now: number): DeliveryOutcome | null {
    return this.db.transaction((): DeliveryOutcome | null => {
      const dueAt = row.next_due_at!;
      const rule = row.cron !== null && row.time_zone !== null ? { cron: row.cron, timeZone: row.time_zone } : null;
      const missed = rule ? countOccurrences(rule, dueAt, now) : 1;
      const next = rule ? nextOccurrence(rule, now) : null;
      const status = next === null ? 'completed' : 'active';
      // Guarded on the due time it read: a concurrent cancel or a second delivery changes nothing.
      const moved = this.advance.run(next, status, status, status, now, row.id, dueAt);
      if (moved.changes === 0) return null;
      let messageId: string | null = null;
      let error: string | null = null;
      try {
        // A savepoint: a failed send leaves the run record and the advance in place.
        messageId = this.db.transaction(() => this.messages.send({
          serverId: row.server_id, target: row.target, author: row.created_by, content: row.content,
        }).id)();
      } catch (err) {
        // Cut to the bound the run schema states (an error message can quote input).
        error = clipJson(err instanceof ExecError ? `${err.code}: ${err.message}` : 'internal: the message could not be stored', LIMITS.runError);
      }
      const late = now - dueAt > LATE_AFTER_MS;
      this.insertRun.run(newId('run'), row.id, row.server_id, dueAt, now, messageId ? 'delivered' : 'failed', late ? 1 : 0, missed, messageId, error, now);
      return { scheduleId: row.id, delivered: messageId !== null, late, missed };
    }).immediate();
  }
}
