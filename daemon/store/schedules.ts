import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { storeDomain } from './domain.js';
import {
  scheduledMessageCancel,
  scheduledMessageCreate,
  scheduledMessageGet,
  scheduledMessageList,
  scheduledMessageRuns,
} from '../../catalog/domains/scheduled-message.js';
import { checkCronRule, type CronRuleError, nextOccurrence } from '../../lib/cron.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import type { Migration } from './migrations.js';
import { runOf, scheduleOf, type RunRow, type ScheduleRow } from './schedule-rows.js';
import type { Caller } from './server-api.js';
import type { Sql } from './sql.js';
import { createdAtPage, keysetPage, type Condition } from './keyset-page.js';

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
  return (
    m >= 1 &&
    m <= 12 &&
    d >= 1 &&
    d <= new Date(Date.UTC(y, m, 0)).getUTCDate() &&
    h < 24 &&
    min < 60 &&
    sec < 60
  );
}

/** The first due time of a new schedule, or a validation error naming the field at fault. */
function firstDue(input: CreateIn, now: number): { at: number | null; due: number } {
  if ((input.at === undefined) === (input.cron === undefined))
    throw invalid('', 'give exactly one of at or cron');
  if (input.at !== undefined) {
    if (input.timeZone !== undefined)
      throw invalid('/timeZone', 'timeZone goes with cron; at carries its own offset');
    const at = Date.parse(input.at);
    if (!Number.isFinite(at) || !realCalendarDate(input.at))
      throw invalid('/at', 'at is not a real date and time');
    if (at <= now) throw invalid('/at', 'at must be in the future');
    return { at, due: at };
  }
  if (input.timeZone === undefined)
    throw invalid(
      '/timeZone',
      'a cron rule needs an explicit timeZone (IANA name such as UTC or Europe/Berlin)',
    );
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

const SCHEDULE_COLUMNS =
  'id, server_id, created_by, target, content, at, cron, time_zone, status, next_due_at, revision, created_at, updated_at';
const RUN_COLUMNS =
  'id, schedule_id, due_at, attempted_at, outcome, late, missed, message_id, error, created_at, COALESCE(attempted_at, created_at) AS eff';

/** Scheduled messages and their runs, scoped by server id. Delivery is the scheduler's (daemon/schedule/). */
export class ScheduleStore {
  /** Called after every committed change that may move the next due time (the scheduler re-arms its timer). */
  onChange: () => void = () => {};

  constructor(private readonly s: StoreContext) {}

  async create(c: Caller, input: CreateIn): Promise<Out> {
    const out = await this.s.idempotency.run(c, 'scheduled-message/create', input, async (q) => {
      const now = this.s.now();
      const { at, due } = firstDue(input, now);
      const id = newId('sched');
      await q.run(
        `INSERT INTO scheduled_messages (id, server_id, created_by, target, content, at, cron, time_zone, status, next_due_at, revision, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, 1, ?, ?)`,
        [
          id,
          c.serverId,
          `agent:${c.agentId}`,
          input.target,
          input.content,
          at,
          input.cron ?? null,
          input.timeZone ?? null,
          due,
          now,
          now,
        ],
      );
      return { scheduledMessage: scheduleOf((await this.byId(q, id, c.serverId))!) };
    });
    this.onChange();
    return out;
  }

  async get(c: Caller, input: InputOf<typeof scheduledMessageGet>): Promise<Out> {
    return { scheduledMessage: scheduleOf(await this.row(this.s.sql, c, input.id)) };
  }

  private byId(q: Sql, id: string, serverId: string): Promise<ScheduleRow | undefined> {
    return q.get<ScheduleRow>(
      `SELECT ${SCHEDULE_COLUMNS} FROM scheduled_messages WHERE id = ? AND server_id = ?`,
      [id, serverId],
    );
  }

  private async row(q: Sql, c: Caller, id: string): Promise<ScheduleRow> {
    const row = await this.byId(q, id, c.serverId);
    if (!row)
      throw new ExecError('not_found', `scheduled message ${id} not found`, {
        hint: 'List schedules with scheduled-message list.',
      });
    return row;
  }

  async cancel(c: Caller, input: InputOf<typeof scheduledMessageCancel>): Promise<Out> {
    const out = await this.s.idempotency.run(c, 'scheduled-message/cancel', input, async (q) => {
      const row = await this.row(q, c, input.id);
      if (row.status === 'completed') {
        throw new ExecError(
          'invalid_transition',
          `scheduled message ${input.id} was already delivered and is completed`,
        );
      }
      if (row.status === 'active') {
        await q.run(
          'UPDATE scheduled_messages SET status = ?, next_due_at = NULL, revision = revision + 1, updated_at = ? WHERE id = ?',
          ['cancelled', this.s.now(), row.id],
        );
      }
      return { scheduledMessage: scheduleOf((await this.byId(q, row.id, c.serverId))!) };
    });
    this.onChange();
    return out;
  }

  async list(
    c: Caller,
    input: InputOf<typeof scheduledMessageList>,
  ): Promise<OutputOf<typeof scheduledMessageList>> {
    const filter = { status: input.status, target: input.target };
    const where: Condition[] = [['server_id = ?', c.serverId]];
    if (input.status !== undefined) where.push(['status = ?', input.status]);
    if (input.target !== undefined) where.push(['target = ?', input.target]);
    const { items, ...more } = await createdAtPage<ScheduleRow>(
      this.s.sql,
      this.s.cursors,
      { action: 'scheduled-message/list', scope: c.serverId, filter },
      input,
      `SELECT ${SCHEDULE_COLUMNS} FROM scheduled_messages`,
      where,
    );
    return { scheduledMessages: items.map(scheduleOf), ...more };
  }

  async runs(
    c: Caller,
    input: InputOf<typeof scheduledMessageRuns>,
  ): Promise<OutputOf<typeof scheduledMessageRuns>> {
    // The cursor is checked first: a foreign cursor is a validation error even where the schedule is unknown.
    const select = `SELECT ${RUN_COLUMNS} FROM scheduled_runs WHERE schedule_id = ?`;
    const { items, ...more } = await keysetPage<RunRow>(
      this.s.cursors,
      { action: 'scheduled-message/runs', scope: c.serverId, filter: { id: input.id } },
      input,
      (r) => [r.eff, r.id],
      (n) => this.s.sql.all<RunRow>(`${select} ORDER BY eff DESC, id DESC LIMIT ?`, [input.id, n]),
      (at, id, n) =>
        this.s.sql.all<RunRow>(
          `${select} AND (COALESCE(attempted_at, created_at) < ? OR (COALESCE(attempted_at, created_at) = ? AND id < ?)) ORDER BY eff DESC, id DESC LIMIT ?`,
          [input.id, at, at, id, n],
        ),
    );
    if (items.length === 0) await this.row(this.s.sql, c, input.id);
    return { runs: items.map(runOf), ...more };
  }
}

/** The scheduled-message domain of the team server; the scheduler subscribes to its onChange. */
export const scheduleDomain = storeDomain(
  (ctx) => new ScheduleStore(ctx),
  (on) => [
    on(scheduledMessageCreate, (s, c, i) => s.create(c, i)),
    on(scheduledMessageGet, (s, c, i) => s.get(c, i)),
    on(scheduledMessageList, (s, c, i) => s.list(c, i)),
    on(scheduledMessageCancel, (s, c, i) => s.cancel(c, i)),
    on(scheduledMessageRuns, (s, c, i) => s.runs(c, i)),
  ],
);
