import { pageLimit, pageOf, type CursorBinding, type CursorCodec, type Page } from '../exec/cursor.js';

const KEY = ['number', 'string'] as const;

/**
 * One page of a store collection ordered by `(updated_at, id)`: the first
 * query without a cursor, the continuation query after the decoded position
 * with one, both asked for limit + 1 rows so `hasMore` needs no count.
 */
export function updatedAtPage<R extends { updated_at: number; id: string }>(
  cursors: CursorCodec,
  binding: CursorBinding,
  input: { limit?: number; cursor?: string },
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
  return pageOf(rows, limit, (r) => cursors.encode(binding, [r.updated_at, r.id]));
}
