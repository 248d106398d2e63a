/**
 * Size limits of everything a runtime can store, in one place.
 *
 * The result budget is counted in bytes of serialized JSON, so the limits that
 * decide a stored entity's size are too: `x-maxJsonBytes` caps the UTF-8
 * length of a string as JSON writes it (without the quotes), escapes
 * included: a control character such as U+0001 costs 6 bytes (`\u0001`), a
 * quote or backslash 2, an emoji 4. JSON Schema's maxLength counts code
 * points, which says nothing about bytes, so both are given where both
 * matter. The same keyword also refuses strings the store could not keep
 * byte for byte (an unpaired surrogate, which UTF-8 cannot encode).
 */

import { ENTITY_ID_MAX } from './ids.js';

/** The catalog keyword; validators on both sides (CLI and daemon) implement it (lib/json-bytes-keyword.ts). */
export const JSON_BYTES_KEYWORD = 'x-maxJsonBytes';

/** The serialized success envelope budget shared by Exec and MCP tools/call. */
export const RESULT_BUDGET_BYTES = 64 * 1024;

/**
 * The longest keyset cursor the daemon issues or accepts (Exec collections).
 * The team list cursor carries three profile names (displayName, handle,
 * teamId) at up to 256 JSON bytes each, which base64url makes about 1.3 KB.
 */
export const CURSOR_MAX_CHARS = 2048;

export const LIMITS = {
  taskTitle: { chars: 500, bytes: 2048 },
  taskDescription: { chars: 20000, bytes: 40960 },
  handle: { chars: 128, bytes: 512 },
  projectName: { chars: 200, bytes: 1024 },
  projectDescription: { chars: 20000, bytes: 40960 },
  reviewBody: { chars: 20000, bytes: 40960 },
  messageContent: { chars: 10000, bytes: 10240 },
  emoji: { chars: 32, bytes: 64 },
  /** Distinct emoji on one message. */
  reactionEmoji: 8,
  /** Reactors of one emoji on one message. */
  reactors: 5,
  /** Agent ids (profile), which become message and review authors. */
  agentId: { chars: ENTITY_ID_MAX, bytes: ENTITY_ID_MAX },
  query: { chars: 200, bytes: 1024 },
  /** Profile-owned strings shown by team and agent reads. */
  profileName: { chars: 128, bytes: 256 },
  profileUrl: { chars: 512, bytes: 2048 },
  teamMembers: 100,
  agentHeaders: 32,
  agentTeams: 64,
} as const;

/** A string schema fragment with both limits. */
export function textLimit(l: { chars: number; bytes: number }) {
  return { maxLength: l.chars, [JSON_BYTES_KEYWORD]: l.bytes } as { maxLength: number; 'x-maxJsonBytes': number };
}

/** UTF-8 bytes of a string as JSON writes it, without the quotes. */
export function jsonBytes(s: string): number {
  return Buffer.byteLength(JSON.stringify(s), 'utf8') - 2;
}

/** False when the string holds an unpaired surrogate, which UTF-8 (and so the store) cannot keep. */
export function isWellFormedText(s: string): boolean {
  return !/\p{Cs}/u.test(s);
}
