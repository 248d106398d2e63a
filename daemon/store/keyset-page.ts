import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { pageLimit, pageOf, type CursorBinding, type CursorCodec, type Page } from '../exec/cursor.js';

const KEY = ['number', 'string'] as const;

/**
 * One page of a collection ordered by a (number, id) key, for orders other
 * than (updated_at, id): the first query without a cursor, the continuation
 * after the decoded position with one, both asked for limit + 1 rows.
 * Given queries that return Promises (the async Sql interface) it returns a
 * Promise of the page; given synchronous ones, the page itself. A bad cursor
 * throws before any query runs, in both forms.
 */
export function keysetPage<R>(
  cursors: CursorCodec,
  binding: CursorBinding,
  input: { limit?: number; cursor?: string },
  keyOf: (row: R) => [number, string],
  first: (rows: number) => Promise<R[]>,
  after: (at: number, id: string, rows: number) => Promise<R[]>,
): Promise<Page<R>>;
/** @deprecated the synchronous form, for stores not yet on the async Sql interface. */
export function keysetPage<R>(
  cursors: CursorCodec,
  binding: CursorBinding,
  input: { limit?: number; cursor?: string },
  keyOf: (row: R) => [number, string],
  first: (rows: number) => R[],
  after: (at: number, id: string, rows: number) => R[],
): Page<R>;
export function keysetPage<R>(
  cursors: CursorCodec,
  binding: CursorBinding,
  input: { limit?: number; cursor?: string },
  keyOf: (row: R) => [number, string],
  first: (rows: number) => R[] | Promise<R[]>,
  after: (at: number, id: string, rows: number) => R[] | Promise<R[]>,
): Page<R> | Promise<Page<R>> {
  const limit = pageLimit(input.limit);
  let rows: R[] | Promise<R[]>;
  if (input.cursor === undefined) {
    rows = first(limit + 1);
  } else {
    const [at, id] = cursors.decode(binding, input.cursor, KEY) as [number, string];
    rows = after(at, id, limit + 1);
  }
  const page = (r: R[]) => pageOf(r, limit, (x) => cursors.encode(binding, keyOf(x)));
  return Array.isArray(rows) ? page(rows) : rows.then(page);
}

/** The two SQL texts of a `created_at DESC, id DESC` listing for one filter shape. */
export interface CreatedPageSql {
  readonly first: string;
  readonly after: string;
}

/**
 * The first-page and continuation queries of a listing newest first, as SQL
 * text for the async Sql interface (its driver prepares each text once).
 * `select` is `SELECT … FROM table`, `where` the filter. Parameters: the
 * `where` values, then (continuation only) created_at twice and id, then the
 * row count.
 */
export function createdAtSql(select: string, where: string): CreatedPageSql {
  return {
    first: `${select} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ?`,
    after: `${select} WHERE ${where} AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?`,
  };
}

/** @deprecated the two prepared statements of `createdAtQueries`, for stores not yet on the async Sql interface. */
export interface CreatedPageQueries<R> {
  first: Statement<unknown[], R>;
  after: Statement<unknown[], R>;
}

/**
 * @deprecated use `createdAtSql` with the async Sql interface; kept until every
 * store has moved. Prepares, once per filter shape (`where`), the statements
 * of `createdAtSql`.
 */
export function createdAtQueries<R>(
  db: Db, cache: Map<string, CreatedPageQueries<R>>, select: string, where: string,
): CreatedPageQueries<R> {
  let q = cache.get(where);
  if (!q) {
    const text = createdAtSql(select, where);
    q = { first: db.prepare<unknown[], R>(text.first), after: db.prepare<unknown[], R>(text.after) };
    cache.set(where, q);
  }
  return q;
}
