import { CURSOR_MAX_CHARS } from './limits.js';
import { SELECTOR_MAX_BYTES, SELECTOR_PATTERN } from './selectors.js';
import { RUNTIME_KINDS } from './runtimes.js';

/** Schema fragments shared by several actions. Spread into `as const` schemas. */

export const ID_PATTERN = '^[a-z]+_[0-9A-Za-z]{6,40}$';

export const idSchema = { type: 'string', pattern: ID_PATTERN, maxLength: 64, 'x-maxJsonBytes': 64 } as const;

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
    description: 'Replays the first result for a repeated key (within 24 h) instead of applying the change twice.',
  },
  requestId: {
    type: 'string',
    pattern: SELECTOR_PATTERN,
    maxLength: SELECTOR_MAX_BYTES,
    'x-maxJsonBytes': SELECTOR_MAX_BYTES,
    description: 'Another name for the same selector as idempotencyKey; when both are given they must be equal.',
  },
} as const;

export const pageInputProps = {
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Items per page (default 20, max 100).' },
  cursor: { type: 'string', minLength: 1, maxLength: CURSOR_MAX_CHARS, 'x-maxJsonBytes': CURSOR_MAX_CHARS, description: 'Opaque nextCursor from the previous page.' },
} as const;

export const pageOutputProps = {
  hasMore: { type: 'boolean' },
  nextCursor: { type: 'string', maxLength: CURSOR_MAX_CHARS, 'x-maxJsonBytes': CURSOR_MAX_CHARS, description: 'Present only when hasMore is true.' },
} as const;

/** A runtime kind, as agent reads report it and agent create/update accept it. */
export const runtimeKindSchema = { type: 'string', enum: RUNTIME_KINDS } as const;

/** A stored row's revision: 1 on create, bumped by every change. */
export const rowRevisionSchema = { type: 'integer', minimum: 1 } as const;
