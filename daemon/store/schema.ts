import { randomBytes } from 'node:crypto';
import type { Migration } from './migrations.js';
import { MESSAGES_MIGRATION } from './messages-schema.js';
import { IDEMPOTENCY_AGE_MIGRATION } from './idempotency.js';
import { SCHEDULES_MIGRATION } from './schedules.js';
import { APPROVALS_MIGRATION } from './approvals.js';
import { WORKFLOW_MIGRATION } from './workflow-schema.js';
import { AUDIT_MIGRATION, AUDIT_TURN_MIGRATION } from './audit-rows.js';
import type { StoreDomain } from './domain.js';

/**
 * The store's schema history, oldest first: these entries, then the
 * migrations each store domain declares, in the order of the domain list
 * (STORE_DOMAINS, daemon/domains/list.ts; a new domain is appended there). Never edit or reorder an entry that has shipped.
 * Every row is scoped by server_id: the embedded store stands in for one team
 * server per serverId.
 */
const HISTORY: Migration[] = [
  {
    id: '001_core',
    up(db) {
      db.exec(`
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
        CREATE TABLE projects (
          id TEXT PRIMARY KEY, server_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
          revision INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX projects_by_update ON projects (server_id, updated_at DESC, id ASC);
        CREATE TABLE tasks (
          id TEXT PRIMARY KEY, server_id TEXT NOT NULL, title TEXT NOT NULL, description TEXT NOT NULL,
          status TEXT NOT NULL, assignee TEXT, project_id TEXT REFERENCES projects (id),
          revision INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX tasks_by_update ON tasks (server_id, updated_at DESC, id ASC);
        CREATE TABLE reviews (
          id TEXT PRIMARY KEY, server_id TEXT NOT NULL, task_id TEXT NOT NULL REFERENCES tasks (id),
          author TEXT NOT NULL, verdict TEXT NOT NULL, body TEXT NOT NULL,
          created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX reviews_by_task ON reviews (task_id, updated_at DESC, id DESC);
        CREATE TABLE idempotency (
          server_id TEXT NOT NULL, agent_id TEXT NOT NULL, action TEXT NOT NULL, key TEXT NOT NULL,
          body_hash TEXT NOT NULL, result TEXT NOT NULL, created_at INTEGER NOT NULL,
          PRIMARY KEY (server_id, agent_id, action, key)
        ) STRICT;
      `);
      // The key that signs pagination cursors; kept in the store so cursors survive restarts.
      db.prepare("INSERT INTO meta (key, value) VALUES ('cursor_key', ?)").run(
        randomBytes(32).toString('base64url'),
      );
    },
  },
  MESSAGES_MIGRATION,
  SCHEDULES_MIGRATION,
  APPROVALS_MIGRATION,
  WORKFLOW_MIGRATION,
  IDEMPOTENCY_AGE_MIGRATION,
  AUDIT_MIGRATION,
  AUDIT_TURN_MIGRATION,
];

/** The whole schema of a store serving these domains: the history, then each domain's own migrations in list order. */
export function storeMigrations(domains: readonly StoreDomain<unknown>[]): readonly Migration[] {
  return [...HISTORY, ...domains.flatMap((d) => d.migrations)];
}
