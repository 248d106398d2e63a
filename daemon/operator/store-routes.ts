import type { Context, Hono } from 'hono';
import { readJsonBody } from '../http/json-body.js';
import { isAbsolute } from 'node:path';
import type { Db } from '../store/db.js';
import { backupSqlite, BackupTargetError } from '../../lib/store-backup.js';
import { ExecError, errorBody } from '../errors/exec-error.js';
import type { RuntimeEnv } from '../auth/principal.js';

/** Longest backup path accepted (Linux PATH_MAX). */
const MAX_PATH_BYTES = 4096;

/**
 * `POST /api/v1/store/backup` `{path, overwrite?}`: a consistent copy of the
 * store taken through the daemon's own connection while it keeps serving.
 * One backup at a time (a second answers `busy`). The operator-token
 * middleware on /api/v1 runs first.
 *
 * On a shared PostgreSQL store there is no file to copy: the route says so
 * and names the database, whose own tools (pg_dump) back it up.
 */
export function registerStoreOperatorRoutes(
  app: Hono<RuntimeEnv>,
  db: Db | null,
  home: string,
  store: { kind: string; location: string },
): void {
  let running = false;
  app.post('/api/v1/store/backup', async (c) => {
    try {
      const body = await readJsonBody(c);
      const { path, overwrite } = (body ?? {}) as { path?: unknown; overwrite?: unknown };
      const extra =
        body && typeof body === 'object'
          ? Object.keys(body).filter((k) => k !== 'path' && k !== 'overwrite')
          : [];
      if (
        typeof path !== 'string' ||
        !isAbsolute(path) ||
        Buffer.byteLength(path) > MAX_PATH_BYTES ||
        path.includes('\0') ||
        extra.length > 0 ||
        (overwrite !== undefined && typeof overwrite !== 'boolean')
      ) {
        throw new ExecError(
          'validation_failed',
          'expected {"path": "<absolute path>", "overwrite"?: boolean}',
          {
            details: [
              { path: '/path', message: `an absolute path of at most ${MAX_PATH_BYTES} bytes` },
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
        return c.json({ ok: true, data: { ...r, via: 'daemon' } });
      } finally {
        running = false;
      }
    } catch (err) {
      return fail(
        c,
        err instanceof BackupTargetError ? new ExecError('invalid_request', err.message) : err,
      );
    }
  });
}

function fail(c: Context, err: unknown): Response {
  return c.json(
    { ok: false, error: errorBody(err) },
    (err instanceof ExecError ? err.status : 500) as 400,
  );
}
