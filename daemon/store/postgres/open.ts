import type { StoreUrl } from '../../../lib/store-url.js';
import type { Migration } from '../migrations.js';
import { migratePostgres } from './migrate.js';
import { PgSql } from './pg-sql.js';

/**
 * Connects to a shared team database and migrates it. A database that cannot
 * be reached is a start-up error naming its host, never its password.
 * `migrations`: the schema of the domains it serves (storeMigrations).
 */
export async function openPostgresStore(
  url: StoreUrl,
  log: (message: string) => void,
  migrations: readonly Migration[],
): Promise<PgSql> {
  const sql = new PgSql(url, log);
  try {
    await sql.withClient((client) => migratePostgres(client, migrations));
    return sql;
  } catch (err) {
    await sql.close().catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot open the team store at ${url.location}: ${url.mask(message)}`);
  }
}
