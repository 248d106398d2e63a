import type { OutputOf } from '../../catalog/descriptor.js';
import type {
  scheduledMessageGet,
  scheduledMessageRuns,
} from '../../catalog/domains/scheduled-message.js';
import { isoTime } from './ids.js';

type Schedule = OutputOf<typeof scheduledMessageGet>['scheduledMessage'];
type Run = OutputOf<typeof scheduledMessageRuns>['runs'][number];

export interface ScheduleRow {
  id: string;
  server_id: string;
  created_by: string;
  target: string;
  content: string;
  at: number | null;
  cron: string | null;
  time_zone: string | null;
  status: Schedule['status'];
  next_due_at: number | null;
  revision: number;
  created_at: number;
  updated_at: number;
}

export interface RunRow {
  id: string;
  schedule_id: string;
  due_at: number;
  attempted_at: number | null;
  outcome: Run['outcome'];
  late: number;
  missed: number;
  message_id: string | null;
  error: string | null;
  created_at: number;
  /** COALESCE(attempted_at, created_at): the ordering key and the public attemptedAt. */
  eff: number;
}

export const scheduleOf = (r: ScheduleRow): Schedule => ({
  id: r.id,
  target: r.target,
  content: r.content,
  at: r.at === null ? null : isoTime(r.at),
  cron: r.cron,
  timeZone: r.time_zone,
  status: r.status,
  nextRunAt: r.next_due_at === null ? null : isoTime(r.next_due_at),
  createdBy: r.created_by,
  revision: r.revision,
  createdAt: isoTime(r.created_at),
  updatedAt: isoTime(r.updated_at),
});

export const runOf = (r: RunRow): Run => ({
  id: r.id,
  scheduleId: r.schedule_id,
  dueAt: isoTime(r.due_at),
  attemptedAt: isoTime(r.eff),
  outcome: r.outcome,
  late: r.late === 1,
  missed: r.missed,
  messageId: r.message_id,
  error: r.error,
});
