import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { homePaths, resolveHome } from '../../lib/home.js';
import { readDaemonInfo } from '../daemon-client.js';
import { sendOperator } from './message-common.js';

/**
 * `agentteam store backup FILE [--force]`: a consistent copy of the store
 * (0600). Through the running daemon (operator route) when there is one,
 * otherwise straight from store.db with a read-only connection. An existing
 * FILE is refused unless --force. Prints one JSON envelope.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const file = args[0];
  if (!file) {
    process.stderr.write('agentteam store backup: FILE is missing\n');
    return 2;
  }
  const path = resolve(file);
  const overwrite = opts.force === true;
  const home = resolveHome();
  if (readDaemonInfo(home)) return sendOperator(home, 'POST', '/api/v1/store/backup', { path, overwrite }, 'store backup');
  const store = homePaths(home).store;
  if (!existsSync(store)) {
    process.stderr.write(`agentteam store backup: no store at ${store}\n`);
    return 1;
  }
  const { backupSqlite, BackupTargetError } = await import('../../lib/store-backup.js');
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    const r = await backupSqlite(db, path, overwrite, home);
    process.stdout.write(`${JSON.stringify({ ok: true, data: { ...r, via: 'direct' } })}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof BackupTargetError)) throw err;
    process.stderr.write(`agentteam store backup: ${err.message}\n`);
    return 1;
  } finally {
    db.close();
  }
}
