import { pageLimit, pageOf, type CursorBinding, type CursorCodec, type Page } from '../exec/cursor.js';

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

/** The two SQL texts of a `created_at DESC, id DESC` listing for one filter shape. */
export interface CreatedPageSql {
  readonly first: string;
  readonly after: string;
}

/**
 * The first-page and continuation queries of a listing newest first (the
 * driver prepares each text once). `select` is `SELECT … FROM table`, `where`
 * the filter. Parameters: the `where` values, then (continuation only)
 * created_at twice and id, then the row count.
 */
export function createdAtSql(select: string, where: string): CreatedPageSql {
  return {
    first: `${select} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ?`,
    after: `${select} WHERE ${where} AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?`,
  };
}
