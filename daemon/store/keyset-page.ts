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
