import type { Migration } from './migrations.js';

export const WORKFLOW_MIGRATION: Migration = {
  id: '005_workflows',
  up(db) {
    db.exec(`
    CREATE TABLE wf_plans (
      id TEXT PRIMARY KEY, server_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
      status TEXT NOT NULL, latest_version INTEGER NOT NULL, published_version INTEGER,
      revision INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX wf_plans_by_created ON wf_plans (server_id, created_at DESC, id DESC);
    CREATE TABLE wf_plan_versions (
      plan_id TEXT NOT NULL REFERENCES wf_plans (id), version INTEGER NOT NULL, steps TEXT NOT NULL, created_at INTEGER NOT NULL,
      PRIMARY KEY (plan_id, version)
    ) STRICT;
    CREATE TABLE wf_triggers (
      id TEXT PRIMARY KEY, server_id TEXT NOT NULL, plan_id TEXT NOT NULL REFERENCES wf_plans (id), kind TEXT NOT NULL,
      cron TEXT, time_zone TEXT, target TEXT, status TEXT NOT NULL, next_fire_at INTEGER,
      revision INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX wf_triggers_by_created ON wf_triggers (server_id, created_at DESC, id DESC);
    CREATE INDEX wf_triggers_due ON wf_triggers (next_fire_at) WHERE status = 'enabled' AND kind = 'schedule';
    CREATE INDEX wf_triggers_by_target ON wf_triggers (server_id, target) WHERE status = 'enabled' AND kind = 'message';
    CREATE TABLE wf_runs (
      id TEXT PRIMARY KEY, server_id TEXT NOT NULL, plan_id TEXT NOT NULL REFERENCES wf_plans (id), plan_version INTEGER NOT NULL,
      trigger_id TEXT, status TEXT NOT NULL, started_by TEXT NOT NULL,
      revision INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER
    ) STRICT;
    CREATE INDEX wf_runs_by_created ON wf_runs (server_id, created_at DESC, id DESC);
    CREATE TABLE wf_steps (
      id TEXT PRIMARY KEY, run_id TEXT NOT NULL REFERENCES wf_runs (id), idx INTEGER NOT NULL, name TEXT NOT NULL,
      status TEXT NOT NULL, note TEXT, revision INTEGER NOT NULL, updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX wf_steps_by_run ON wf_steps (run_id, idx);
    CREATE TABLE wf_logs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL REFERENCES wf_runs (id), step_id TEXT,
      event TEXT NOT NULL, detail TEXT, at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX wf_logs_by_run ON wf_logs (run_id, seq);
    `);
  },
};
