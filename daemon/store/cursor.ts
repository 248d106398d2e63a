import { createHmac, timingSafeEqual } from 'node:crypto';
import { ExecError } from '../errors/exec-error.js';
import { CURSOR_MAX_CHARS } from '../../catalog/limits.js';
import { canonicalJson, sha256Base64url } from './canonical-json.js';

/**
 * What a cursor is bound to. A cursor decodes only under the same action,
 * scope (server, or profile for local collections), normalized filter and,
 * where given, collection revision it was issued for.
 */
export interface CursorBinding {
  readonly action: string;
  readonly scope: string;
  readonly filter: Readonly<Record<string, unknown>>;
  readonly revision?: string;
}

/** A keyset position: the ordering key values of the last item of a page. */
type Keyset = readonly (string | number)[];

interface Payload {
  v: 1;
  a: string;
  s: string;
  f: string;
  r?: string;
  k: (string | number)[];
}

function invalid(message: string): ExecError {
  return new ExecError('validation_failed', 'invalid cursor', {
    details: [{ path: '/cursor', message }],
  });
}

/**
 * Opaque keyset cursors: base64url(JSON payload) "." base64url(HMAC-SHA256).
 * The signature makes any edit detectable; the bound fields make a cursor
 * from another action, server, filter or revision fail instead of silently
 * restarting at page one.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  encode(binding: CursorBinding, keyset: Keyset): string {
    const payload: Payload = {
      v: 1,
      a: binding.action,
      s: binding.scope,
      f: filterDigest(binding.filter),
      k: [...keyset],
    };
    if (binding.revision !== undefined) payload.r = binding.revision;
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const token = `${body}.${this.sign(body)}`;
    // A cursor the caller could not send back would strand every later page.
    if (token.length > CURSOR_MAX_CHARS)
      throw new Error(
        `cursor of ${token.length} characters exceeds ${CURSOR_MAX_CHARS}; the keyset is not bounded`,
      );
    return token;
  }

  /** Returns the keyset, checked for arity and element types against `shape`. */
  decode(binding: CursorBinding, token: string, shape: readonly ('string' | 'number')[]): Keyset {
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) throw invalid('the cursor is malformed');
    const body = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(body), 'base64url');
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
      throw invalid('the cursor was not issued by this server or has been altered');
    }
    let p: Payload;
    try {
      p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    } catch {
      throw invalid('the cursor is malformed');
    }
    if (p === null || typeof p !== 'object' || p.v !== 1 || !Array.isArray(p.k))
      throw invalid('the cursor is malformed');
    if (p.a !== binding.action || p.s !== binding.scope)
      throw invalid('the cursor belongs to another collection');
    if (p.f !== filterDigest(binding.filter))
      throw invalid(
        'the cursor was issued for different filters; repeat the same filters or start without a cursor',
      );
    if (p.r !== binding.revision)
      throw invalid(
        'the collection changed since this cursor was issued; start again without a cursor',
      );
    if (p.k.length !== shape.length || p.k.some((v, i) => typeof v !== shape[i]))
      throw invalid('the cursor is malformed');
    return p.k;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

function filterDigest(filter: Readonly<Record<string, unknown>>): string {
  return sha256Base64url(canonicalJson(filter)).slice(0, 22);
}

/** Default and maximum page sizes of every collection. */
const PAGE_DEFAULT = 20;
const PAGE_MAX = 100;

export function pageLimit(limit: number | undefined): number {
  return Math.min(Math.max(limit ?? PAGE_DEFAULT, 1), PAGE_MAX);
}

/** A page: its items, hasMore, and nextCursor only when another page exists (spread the rest into the output). */
export type Page<T> = { items: T[]; hasMore: boolean; nextCursor?: string };

/** Builds a page from up to limit + 1 rows. */
export function pageOf<T>(rows: T[], limit: number, cursorFor: (last: T) => string): Page<T> {
  if (rows.length <= limit) return { items: rows, hasMore: false };
  const items = rows.slice(0, limit);
  return { items, hasMore: true, nextCursor: cursorFor(items[items.length - 1]!) };
}
