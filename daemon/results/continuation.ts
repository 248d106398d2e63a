import type { ResultPolicy } from '../../catalog/inventory.js';
import { CURSOR_MAX_CHARS } from '../../catalog/limits.js';

/** A follow-up call: the action (as the caller names it) and the complete input to send. */
interface NextCall {
  readonly action: string;
  readonly input: Record<string, unknown>;
}

interface Continuation {
  readonly hint: string;
  readonly next?: NextCall;
}

/** The collection of a list result: the one top-level array beside `hasMore`. */
interface Page {
  readonly field: string;
  readonly items: readonly unknown[];
  readonly nextCursor: string | undefined;
}

function pageOf(data: unknown): Page | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const d = data as Record<string, unknown>;
  if (typeof d.hasMore !== 'boolean') return undefined;
  const arrays = Object.entries(d).filter(([, v]) => Array.isArray(v));
  if (arrays.length !== 1) return undefined;
  const [field, items] = arrays[0] as [string, unknown[]];
  return { field, items, nextCursor: typeof d.nextCursor === 'string' ? d.nextCursor : undefined };
}

function inputObject(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? { ...(input as Record<string, unknown>) }
    : {};
}

function idOf(item: unknown): string | undefined {
  const id =
    item !== null && typeof item === 'object' ? (item as Record<string, unknown>).id : undefined;
  return typeof id === 'string' && id.length <= 128 ? id : undefined;
}

/**
 * What to do after a read did not fit, computed from the caller's own input:
 * the same action, the same filters and the same cursor, with a page no
 * larger than what did fit; or, when a single item cannot fit, the same
 * position one item further on, so nothing before or after it is lost.
 *
 * `fits` measures a candidate result exactly as the boundary would. `self` is
 * the action as the caller names it ("task list", "message_history_read").
 */
export function continuationOf(
  self: string,
  policy: ResultPolicy,
  input: unknown,
  data: unknown,
  fits: (candidate: unknown) => boolean,
): Continuation {
  const page = pageOf(data);
  const given = inputObject(input);
  if (!page) {
    const limit = given.limit;
    // Unserializable or not a page: a smaller page from the same position is the only safe advice, if one exists.
    if (typeof limit === 'number' && limit > 1) {
      return {
        hint: policy.hint,
        next: { action: self, input: { ...given, limit: Math.floor(limit / 2) } },
      };
    }
    return { hint: policy.hint };
  }
  const n = page.items.length;
  if (n > 1) {
    const k = largestFittingPrefix(page, data as Record<string, unknown>, fits);
    return {
      hint: `${policy.hint} At most ${k} of these ${n} items fit; ask again from the same position with limit ${k}.`,
      next: { action: self, input: { ...given, limit: k } },
    };
  }
  const id = idOf(page.items[0]);
  const which = id === undefined ? 'The item at this position' : `Item ${id}`;
  if (page.nextCursor === undefined) {
    return {
      hint: `${which} is larger than the result budget on its own and is the last one; nothing follows it.`,
    };
  }
  return {
    hint: `${which} is larger than the result budget on its own; continue past it with the cursor below.`,
    next: { action: self, input: { ...given, cursor: page.nextCursor, limit: 1 } },
  };
}

/**
 * The longest prefix of the page whose result fits, measured with the longest
 * cursor the daemon issues in place (a shorter page always has one, and its
 * length depends on the last item's keys), so the advice holds whatever
 * item ends the shorter page. At least 1 and always fewer than the page held.
 */
function largestFittingPrefix(
  page: Page,
  data: Record<string, unknown>,
  fits: (c: unknown) => boolean,
): number {
  const cursor = 'x'.repeat(CURSOR_MAX_CHARS);
  const candidate = (k: number) => ({
    ...data,
    [page.field]: page.items.slice(0, k),
    hasMore: true,
    nextCursor: cursor,
  });
  let lo = 1;
  let hi = page.items.length - 1;
  let best = 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (fits(candidate(mid))) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}
