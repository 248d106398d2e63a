import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { homePaths, resolveHome } from '../../lib/home.js';
import { readDaemonInfo } from '../daemon-client.js';
import { sendOperator } from './message-common.js';
import { jsonText } from '../json-text.js';
import { refuse } from '../refusal.js';

/**
 * `agentteam store backup FILE [--force]`: a consistent copy of the store
 * (0600). Through the running daemon (operator route) when there is one,
 * otherwise straight from store.db with a read-only connection. An existing
 * FILE is refused unless --force. Prints one JSON envelope.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const file = args[0];
  if (!file) {
    return refuse('store backup', 'usage', 'FILE is missing');
  }
  const path = resolve(file);
  const overwrite = opts.force === true;
  const home = resolveHome();
  if (readDaemonInfo(home))
    return sendOperator(home, 'store.backup', { body: { path, overwrite } }, 'store backup');
  const store = homePaths(home).store;
  if (!existsSync(store)) {
    return refuse('store backup', 'not_found', `no store at ${store}`);
  }
  const { backupSqlite, BackupTargetError } = await import('../../lib/store-backup.js');
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    const r = await backupSqlite(db, path, overwrite, home);
    process.stdout.write(`${jsonText({ ok: true, data: { ...r, via: 'direct' } })}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof BackupTargetError)) throw err;
    // The code the daemon's route answers with; the status stays 1, as for that answer.
    refuse('store backup', 'invalid_request', err.message);
    return 1;
  } finally {
    db.close();
  }
}
