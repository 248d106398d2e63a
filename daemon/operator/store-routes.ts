import { isAbsolute } from 'node:path';
import { BACKUP_PATH_MAX_BYTES } from '../../catalog/operator/daemon.js';
import type { Db } from '../store/db.js';
import { backupSqlite, BackupTargetError } from '../../lib/store-backup.js';
import { ExecError } from '../errors/exec-error.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';

/**
 * `POST /api/v1/store/backup` `{path, overwrite?}`: a consistent copy of the
 * store taken through the daemon's own connection while it keeps serving.
 * One backup at a time (a second answers `busy`).
 *
 * On a shared PostgreSQL store there is no file to copy: the route says so
 * and names the database, whose own tools (pg_dump) back it up.
 */
export function storeOperatorHandlers(
  db: Db | null,
  home: string,
  store: { kind: string; location: string },
): Pick<OperatorHandlers, 'store.backup'> {
  let running = false;
  const backup: OperatorHandlers['store.backup'] = async ({ body: { path, overwrite } }) => {
    try {
      // The schema has the shape; the path's own rules are checked here, refused the same way.
      if (
        !isAbsolute(path) ||
        Buffer.byteLength(path) > BACKUP_PATH_MAX_BYTES ||
        path.includes('\0')
      ) {
        throw new ExecError(
          'validation_failed',
          'expected {"path": "<absolute path>", "overwrite"?: boolean}',
          {
            details: [
              {
                path: '/path',
                message: `an absolute path of at most ${BACKUP_PATH_MAX_BYTES} bytes`,
              },
            ],
          },
        );
      }
      if (!db) {
        throw new ExecError(
          'invalid_request',
          `this daemon's team store is PostgreSQL at ${store.location}; back it up with pg_dump, not store backup`,
        );
      }
      if (running)
        throw new ExecError(
          'busy',
          'a store backup is already running; retry when it has finished',
        );
      running = true;
      try {
        const r = await backupSqlite(db, path, overwrite === true, home);
        return { ...r, via: 'daemon' as const };
      } finally {
        running = false;
      }
    } catch (err) {
      throw err instanceof BackupTargetError ? new ExecError('invalid_request', err.message) : err;
    }
  };
  return { 'store.backup': backup };
}
