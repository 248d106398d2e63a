import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { pageLimit, pageOf, type CursorBinding, type CursorCodec, type Page } from '../exec/cursor.js';

const KEY = ['number', 'string'] as const;

/**
 * One page of a collection ordered by a (number, id) key, for orders other
 * than (updated_at, id): the first query without a cursor, the continuation
 * after the decoded position with one, both asked for limit + 1 rows.
 */
export function keysetPage<R>(
  cursors: CursorCodec,
  binding: CursorBinding,
  input: { limit?: number; cursor?: string },
  keyOf: (row: R) => [number, string],
  first: (rows: number) => R[],
  after: (at: number, id: string, rows: number) => R[],
): Page<R> {
  const limit = pageLimit(input.limit);
  let rows: R[];
  if (input.cursor === undefined) {
    rows = first(limit + 1);
  } else {
    const [at, id] = cursors.decode(binding, input.cursor, KEY) as [number, string];
    rows = after(at, id, limit + 1);
  }
  return pageOf(rows, limit, (r) => cursors.encode(binding, keyOf(r)));
}

/** The two statements of a `created_at DESC, id DESC` listing for one filter shape. */
export interface CreatedPageQueries<R> {
  first: Statement<unknown[], R>;
  after: Statement<unknown[], R>;
}

/**
 * Prepares, once per filter shape (`where`), the first-page and continuation
 * queries of a listing newest first. Parameters: the `where` values, then
 * (continuation only) created_at twice and id, then the row count.
 */
export function createdAtQueries<R>(
  db: Db, cache: Map<string, CreatedPageQueries<R>>, select: string, where: string,
): CreatedPageQueries<R> {
  let q = cache.get(where);
  if (!q) {
    q = {
      first: db.prepare<unknown[], R>(`${select} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ?`),
      after: db.prepare<unknown[], R>(`${select} WHERE ${where} AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?`),
    };
    cache.set(where, q);
  }
  return q;
}

/** `keysetPage` over the async Sql interface: the same decoding, limits and cursors, rows fetched by promise. */
export async function keysetPageAsync<R>(
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

/**
 * The SQL of a `created_at DESC, id DESC` listing (portable: `?` only), same
 * parameters as createdAtQueries: the `where` values, then (continuation
 * only) created_at twice and id, then the row count.
 */
export function createdAtSql(select: string, where: string): { first: string; after: string } {
  return {
    first: `${select} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ?`,
    after: `${select} WHERE ${where} AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?`,
  };
}
