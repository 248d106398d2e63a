import type Database from 'better-sqlite3';

/** One schema step. `id` is permanent: never rename or reorder an applied entry. */
export interface Migration {
  readonly id: string;
  up(db: Database.Database): void;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/**
 * Applies every migration not yet recorded in `schema_migrations`, each in its
 * own transaction together with its record, so a crash leaves the schema at a
 * clean step boundary.
 */
export function runMigrations(
  db: Database.Database,
  migrations: readonly Migration[],
  now = Date.now,
): string[] {
  const seen = new Set<string>();
  for (const m of migrations) {
    if (seen.has(m.id)) throw new MigrationError(`migration "${m.id}" is listed twice`);
    seen.add(m.id);
  }
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT',
  );
  const applied = new Set(
    (db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((r) => r.id),
  );
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  const done: string[] = [];
  for (const m of migrations) {
    if (applied.has(m.id)) continue;
    db.transaction(() => {
      m.up(db);
      record.run(m.id, now());
    }).immediate();
    done.push(m.id);
  }
  return done;
}
