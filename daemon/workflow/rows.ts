import { isoTime } from '../store/ids.js';

/** Storage rows of the workflow tables and their lowerCamelCase DTOs. */

export interface PlanRow {
  id: string;
  server_id: string;
  name: string;
  description: string;
  status: 'draft' | 'published' | 'archived';
  latest_version: number;
  published_version: number | null;
  revision: number;
  created_at: number;
  updated_at: number;
}
export interface VersionRow {
  plan_id: string;
  version: number;
  steps: string;
  created_at: number;
}
export interface TriggerRow {
  id: string;
  server_id: string;
  plan_id: string;
  kind: 'manual' | 'schedule' | 'message';
  cron: string | null;
  time_zone: string | null;
  target: string | null;
  status: 'enabled' | 'disabled' | 'archived';
  next_fire_at: number | null;
  revision: number;
  created_at: number;
  updated_at: number;
}
export interface RunRow {
  id: string;
  server_id: string;
  plan_id: string;
  plan_version: number;
  trigger_id: string | null;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  started_by: string;
  revision: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}
export interface StepRow {
  id: string;
  run_id: string;
  idx: number;
  name: string;
  status: 'pending' | 'ready' | 'completed' | 'failed' | 'paused' | 'parked';
  note: string | null;
  revision: number;
  updated_at: number;
}
export interface LogRow {
  seq: number;
  run_id: string;
  step_id: string | null;
  event: string;
  detail: string | null;
  at: number;
}

export interface StepDef {
  name: string;
  description: string;
}

export const planOf = (r: PlanRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  status: r.status,
  latestVersion: r.latest_version,
  publishedVersion: r.published_version,
  revision: r.revision,
  createdAt: isoTime(r.created_at),
  updatedAt: isoTime(r.updated_at),
});

export const versionOf = (r: VersionRow) => ({
  planId: r.plan_id,
  version: r.version,
  steps: JSON.parse(r.steps) as StepDef[],
  createdAt: isoTime(r.created_at),
});

export const triggerOf = (r: TriggerRow) => ({
  id: r.id,
  planId: r.plan_id,
  kind: r.kind,
  cron: r.cron,
  timeZone: r.time_zone,
  target: r.target,
  status: r.status,
  nextFireAt: r.next_fire_at === null ? null : isoTime(r.next_fire_at),
  revision: r.revision,
  createdAt: isoTime(r.created_at),
  updatedAt: isoTime(r.updated_at),
});

export const runOf = (r: RunRow) => ({
  id: r.id,
  planId: r.plan_id,
  planVersion: r.plan_version,
  triggerId: r.trigger_id,
  status: r.status,
  startedBy: r.started_by,
  revision: r.revision,
  createdAt: isoTime(r.created_at),
  updatedAt: isoTime(r.updated_at),
  finishedAt: r.finished_at === null ? null : isoTime(r.finished_at),
});

export const stepOf = (r: StepRow) => ({
  id: r.id,
  runId: r.run_id,
  index: r.idx,
  name: r.name,
  status: r.status,
  note: r.note,
  revision: r.revision,
  updatedAt: isoTime(r.updated_at),
});

export const logOf = (r: LogRow) => ({
  seq: r.seq,
  at: isoTime(r.at),
  stepId: r.step_id,
  event: r.event,
  detail: r.detail,
});
