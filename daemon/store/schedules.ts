import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type {
  scheduledMessageCancel, scheduledMessageCreate, scheduledMessageGet, scheduledMessageList, scheduledMessageRuns,
} from '../../catalog/domains/scheduled-message.js';
import { checkCronRule, CronRuleError, nextOccurrence } from '../../lib/cron.js';
import { ExecError } from '../errors.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { createdAtQueries, keysetPage, type CreatedPageQueries } from './keyset-page.js';
import type { Migration } from './migrations.js';
import { runOf, scheduleOf, type RunRow, type ScheduleRow } from './schedule-rows.js';
import type { Caller } from './server-api.js';

export const SCHEDULES_MIGRATION: Migration = {
  id: '003_scheduled_messages',
  up(db) {
    db.exec(`
    CREATE TABLE scheduled_messages (
      id TEXT PRIMARY KEY, server_id TEXT NOT NULL, created_by TEXT NOT NULL,
      target TEXT NOT NULL, content TEXT NOT NULL,
      at INTEGER, cron TEXT, time_zone TEXT,
      status TEXT NOT NULL, next_due_at INTEGER,
      revision INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX scheduled_by_created ON scheduled_messages (server_id, created_at DESC, id DESC);
    CREATE INDEX scheduled_due ON scheduled_messages (next_due_at) WHERE status = 'active';
    CREATE TABLE scheduled_runs (
      id TEXT PRIMARY KEY, schedule_id TEXT NOT NULL REFERENCES scheduled_messages (id), server_id TEXT NOT NULL,
      due_at INTEGER NOT NULL, attempted_at INTEGER, outcome TEXT NOT NULL, late INTEGER NOT NULL, missed INTEGER NOT NULL,
      message_id TEXT, error TEXT, created_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX scheduled_runs_by_time ON scheduled_runs (schedule_id, COALESCE(attempted_at, created_at) DESC, id DESC);
    `);
  },
};

type CreateIn = InputOf<typeof scheduledMessageCreate>;
type Out = OutputOf<typeof scheduledMessageGet>;

function invalid(path: string, message: string): ExecError {
  return new ExecError('validation_failed', message, { details: [{ path, message }] });
}

/** Date.parse rolls 2026-02-30 over into March; RFC 3339 does not. */
function realCalendarDate(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const [h, min, sec] = text.slice(11, 19).split(':').map(Number) as [number, number, number];
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate() && h < 24 && min < 60 && sec < 60;
}

/** The first due time of a new schedule, or a validation error naming the field at fault. */
function firstDue(input: CreateIn, now: number): { at: number | null; due: number } {
  if ((input.at === undefined) === (input.cron === undefined)) throw invalid('', 'give exactly one of at or cron');
  if (input.at !== undefined) {
    if (input.timeZone !== undefined) throw invalid('/timeZone', 'timeZone goes with cron; at carries its own offset');
    const at = Date.parse(input.at);
    if (!Number.isFinite(at) || !realCalendarDate(input.at)) throw invalid('/at', 'at is not a real date and time');
    if (at <= now) throw invalid('/at', 'at must be in the future');
    return { at, due: at };
  }
  if (input.timeZone === undefined) throw invalid('/timeZone', 'a cron rule needs an explicit timeZone (IANA name such as UTC or Europe/Berlin)');
  const rule = { cron: input.cron!, timeZone: input.timeZone };
  try {
    checkCronRule(rule);
  } catch (err) {
    throw invalid('/cron', `invalid cron rule or time zone: ${(err as CronRuleError).message}`);
  }
  const due = nextOccurrence(rule, now);
  if (due === null) throw invalid('/cron', 'the cron rule never fires again');
  return { at: null, due };
}

/** Scheduled messages and their runs, scoped by server id. Delivery is the scheduler's (daemon/schedule/). */
export class ScheduleStore {
  private readonly byId;
  private readonly insert;
  private readonly setStatus;
  private readonly runsFirst;
  private readonly runsAfter;
  private readonly lists = new Map<string, CreatedPageQueries<ScheduleRow>>();
  /** Called after every change that may move the next due time (the scheduler re-arms its timer). */
  onChange: () => void = () => {};

  constructor(private readonly s: StoreContext) {
    this.byId = s.db.prepare<[string, string], ScheduleRow>('SELECT * FROM scheduled_messages WHERE id = ? AND server_id = ?');
    this.insert = s.db.prepare(
      `INSERT INTO scheduled_messages (id, server_id, created_by, target, content, at, cron, time_zone, status, next_due_at, revision, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, 1, ?, ?)`,
    );
    this.setStatus = s.db.prepare(
      'UPDATE scheduled_messages SET status = ?, next_due_at = NULL, revision = revision + 1, updated_at = ? WHERE id = ?',
    );
    const runCols = 'SELECT *, COALESCE(attempted_at, created_at) AS eff FROM scheduled_runs WHERE schedule_id = ?';
    this.runsFirst = s.db.prepare<[string, number], RunRow>(`${runCols} ORDER BY eff DESC, id DESC LIMIT ?`);
    this.runsAfter = s.db.prepare<[string, number, number, string, number], RunRow>(
      `${runCols} AND (COALESCE(attempted_at, created_at) < ? OR (COALESCE(attempted_at, created_at) = ? AND id < ?)) ORDER BY eff DESC, id DESC LIMIT ?`,
    );
  }

  create(c: Caller, input: CreateIn): Out {
    const out = this.s.legacyIdempotency.run(c, 'scheduled-message/create', input, () => {
      const now = this.s.now();
      const { at, due } = firstDue(input, now);
      const id = newId('sched');
      this.insert.run(id, c.serverId, `agent:${c.agentId}`, input.target, input.content, at, input.cron ?? null, input.timeZone ?? null, due, now, now);
      return { scheduledMessage: scheduleOf(this.byId.get(id, c.serverId)!) };
    });
    this.onChange();
    return out;
  }

  get(c: Caller, input: InputOf<typeof scheduledMessageGet>): Out {
    return { scheduledMessage: scheduleOf(this.row(c, input.id)) };
  }

  private row(c: Caller, id: string): ScheduleRow {
    const row = this.byId.get(id, c.serverId);
    if (!row) throw new ExecError('not_found', `scheduled message ${id} not found`, { hint: 'List schedules with scheduled-message list.' });
    return row;
  }

  cancel(c: Caller, input: InputOf<typeof scheduledMessageCancel>): Out {
    const out = this.s.legacyIdempotency.run(c, 'scheduled-message/cancel', input, () => {
      const row = this.row(c, input.id);
      if (row.status === 'completed') {
        throw new ExecError('invalid_transition', `scheduled message ${input.id} was already delivered and is completed`);
      }
      if (row.status === 'active') this.setStatus.run('cancelled', this.s.now(), row.id);
      return { scheduledMessage: scheduleOf(this.byId.get(row.id, c.serverId)!) };
    });
    this.onChange();
    return out;
  }

  list(c: Caller, input: InputOf<typeof scheduledMessageList>): OutputOf<typeof scheduledMessageList> {
    const filter = { status: input.status, target: input.target };
    const where = ['server_id = ?'];
    const args: unknown[] = [c.serverId];
    if (input.status !== undefined) (where.push('status = ?'), args.push(input.status));
    if (input.target !== undefined) (where.push('target = ?'), args.push(input.target));
    const q = createdAtQueries<ScheduleRow>(this.s.db, this.lists, 'SELECT * FROM scheduled_messages', where.join(' AND '));
    const { items, ...more } = keysetPage<ScheduleRow>(
      this.s.cursors, { action: 'scheduled-message/list', scope: c.serverId, filter }, input,
      (r) => [r.created_at, r.id],
      (n) => q.first.all(...args, n),
      (at, id, n) => q.after.all(...args, at, at, id, n),
    );
    return { scheduledMessages: items.map(scheduleOf), ...more };
  }

  runs(c: Caller, input: InputOf<typeof scheduledMessageRuns>): OutputOf<typeof scheduledMessageRuns> {
    // The cursor is checked first: a foreign cursor is a validation error even where the schedule is unknown.
    const { items, ...more } = keysetPage<RunRow>(
      this.s.cursors, { action: 'scheduled-message/runs', scope: c.serverId, filter: { id: input.id } }, input,
      (r) => [r.eff, r.id],
      (n) => this.runsFirst.all(input.id, n),
      (at, id, n) => this.runsAfter.all(input.id, at, at, id, n),
    );
    if (items.length === 0) this.row(c, input.id);
    return { runs: items.map(runOf), ...more };
  }
}
