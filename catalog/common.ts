import { CURSOR_MAX_CHARS, LIMITS, lookupText, textLimit } from './limits.js';
import { SELECTOR_MAX_BYTES, SELECTOR_PATTERN } from './selectors.js';
import { RUNTIME_KINDS } from './runtimes.js';

/** Schema fragments shared by several actions. Spread into `as const` schemas. */

export const ID_PATTERN = '^[a-z]+_[0-9A-Za-z]{6,40}$';

export const idSchema = {
  type: 'string',
  pattern: ID_PATTERN,
  maxLength: 64,
  'x-maxJsonBytes': 64,
} as const;

export const timestampSchema = {
  type: 'string',
  description: 'RFC 3339 timestamp (UTC, millisecond precision).',
  maxLength: 40,
  'x-maxJsonBytes': 40,
} as const;

/** The idempotency selectors every mutation accepts (grammar in selectors.ts). */
export const idempotencySelectorProps = {
  idempotencyKey: {
    type: 'string',
    pattern: SELECTOR_PATTERN,
    maxLength: SELECTOR_MAX_BYTES,
    'x-maxJsonBytes': SELECTOR_MAX_BYTES,
    description:
      'Replays the first result for a repeated key (within 24 h) instead of applying the change twice.',
  },
  requestId: {
    type: 'string',
    pattern: SELECTOR_PATTERN,
    maxLength: SELECTOR_MAX_BYTES,
    'x-maxJsonBytes': SELECTOR_MAX_BYTES,
    description:
      'Another name for the same selector as idempotencyKey; when both are given they must be equal.',
  },
} as const;

export const pageInputProps = {
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 20,
    description: 'Items per page (default 20, max 100).',
  },
  // A cursor is only decoded, never stored: any string of CURSOR_MAX_CHARS passes the schema, and a forged one is the cursor decoder's refusal.
  cursor: {
    type: 'string',
    minLength: 1,
    ...lookupText(CURSOR_MAX_CHARS),
    description: 'Opaque nextCursor from the previous page.',
  },
} as const;

/**
 * Cron rules (croner: fields of digits, names, `* , - / ? L W #`, or an
 * `@` nickname) and IANA zone names (`Europe/Berlin`, `Etc/GMT+5`) are
 * ASCII; the patterns say so, which keeps every admitted rule within its
 * byte limit at the full length.
 */
export const cronSchema = {
  type: 'string',
  minLength: 9,
  pattern: '^[-0-9A-Za-z*,/?#@ ]+$',
  ...textLimit(LIMITS.cron),
} as const;
export const timeZoneSchema = {
  type: 'string',
  minLength: 1,
  pattern: '^[-0-9A-Za-z_+/]+$',
  ...textLimit(LIMITS.timeZone),
} as const;

export const pageOutputProps = {
  hasMore: { type: 'boolean' },
  nextCursor: {
    type: 'string',
    maxLength: CURSOR_MAX_CHARS,
    'x-maxJsonBytes': CURSOR_MAX_CHARS,
    description: 'Present only when hasMore is true.',
  },
} as const;

/** A runtime kind, as agent reads report it and agent create/update accept it. */
export const runtimeKindSchema = { type: 'string', enum: RUNTIME_KINDS } as const;

/** A stored row's revision: 1 on create, bumped by every change. */
export const rowRevisionSchema = { type: 'integer', minimum: 1 } as const;
