import { createHash } from 'node:crypto';
import { ExecError } from '../errors/exec-error.js';

/**
 * Opaque keyset cursor for message history: the last row's sequence number
 * plus a short digest of the target it was issued for, so a cursor replayed
 * against another target (or tampered with) is a validation error, never
 * page one.
 */
interface CursorBody {
  v: 1;
  s: number;
  t: string;
}

function targetDigest(target: string): string {
  return createHash('sha256').update(target).digest('base64url').slice(0, 12);
}

export function encodeMessageCursor(target: string, seq: number): string {
  const body: CursorBody = { v: 1, s: seq, t: targetDigest(target) };
  return `m1.${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
}

function invalid(message: string): ExecError {
  return new ExecError('validation_failed', message, {
    details: [{ path: '/cursor', message }],
    hint: 'Omit cursor to read the newest page, or pass the nextCursor returned for this same target.',
  });
}

/** Returns the sequence boundary; throws validation_failed for a malformed or foreign cursor. */
export function decodeMessageCursor(target: string, cursor: string): number {
  if (!cursor.startsWith('m1.')) throw invalid('cursor is not a message history cursor');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor.slice(3), 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor is malformed');
  }
  const b = body as Partial<CursorBody> | null;
  if (
    !b ||
    typeof b !== 'object' ||
    b.v !== 1 ||
    !Number.isSafeInteger(b.s) ||
    (b.s as number) < 1 ||
    typeof b.t !== 'string'
  ) {
    throw invalid('cursor is malformed');
  }
  // Re-encoding must give the same text: rejects padded or reordered variants.
  if (encodeMessageCursor(target, b.s as number) !== cursor) {
    throw invalid(
      b.t === targetDigest(target)
        ? 'cursor is malformed'
        : 'cursor was issued for a different target',
    );
  }
  return b.s as number;
}
