import { pageLimit, pageOf, type CursorBinding, type CursorCodec, type Page } from './cursor.js';
import type { Sql, SqlValue } from './sql.js';

const KEY = ['number', 'string'] as const;

/**
 * One page of a collection ordered by a (number, id) key: the first query
 * without a cursor, the continuation after the decoded position with one,
 * both asked for limit + 1 rows. A bad cursor throws before any query runs.
 */
export async function keysetPage<R>(
  cursors: CursorCodec,
  binding: CursorBinding,
  input: { limit?: number; cursor?: string },
  keyOf: (row: R) => [number, string],
  first: (rows: number) => Promise<R[]>,
  after: (at: number, id: string, rows: number) => Promise<R[]>,
): Promise<Page<R>> {
  const limit = pageLimit(input.limit);
  let rows: R[];
  if (input.cursor === undefined) {
    rows = await first(limit + 1);
  } else {
    const [at, id] = cursors.decode(binding, input.cursor, KEY) as [number, string];
    rows = await after(at, id, limit + 1);
  }
  return pageOf(rows, limit, (r) => cursors.encode(binding, keyOf(r)));
}

/** A filter of a listing: an SQL condition and the values of its placeholders. */
export type Condition = readonly [sql: string, ...args: SqlValue[]];

/**
 * One page of a listing newest first (`created_at DESC, id DESC`), the order
 * of every collection but tasks and projects: `select` is `SELECT … FROM
 * table` (with `selectArgs` for placeholders in its column list), `where` the
 * conditions joined with AND. The driver prepares each resulting text once.
 */
export function createdAtPage<R extends { created_at: number; id: string }>(
  q: Sql,
  cursors: CursorCodec,
  binding: CursorBinding,
  input: { limit?: number; cursor?: string },
  select: string,
  where: readonly Condition[],
  selectArgs: readonly SqlValue[] = [],
): Promise<Page<R>> {
  const clause = where.map(([sql]) => sql).join(' AND ');
  const args = [...selectArgs, ...where.flatMap(([, ...values]) => values)];
  return keysetPage<R>(
    cursors,
    binding,
    input,
    (r) => [r.created_at, r.id],
    (n) =>
      q.all<R>(`${select} WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT ?`, [...args, n]),
    (at, id, n) =>
      q.all<R>(
        `${select} WHERE ${clause} AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?`,
        [...args, at, at, id, n],
      ),
  );
}
