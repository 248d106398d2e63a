import type { CursorBinding, CursorCodec, Page } from './cursor.js';
import { keysetPage } from './keyset-page.js';

/**
 * One page of a store collection ordered by `(updated_at, id)`: the keyset
 * page of keyset-page.ts with the row's own updated_at and id as the key.
 */
export function updatedAtPage<R extends { updated_at: number; id: string }>(
  cursors: CursorCodec,
  binding: CursorBinding,
  input: { limit?: number; cursor?: string },
  first: (rows: number) => Promise<R[]>,
  after: (at: number, id: string, rows: number) => Promise<R[]>,
): Promise<Page<R>> {
  return keysetPage(cursors, binding, input, (r) => [r.updated_at, r.id], first, after);
}
