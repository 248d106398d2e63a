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
 * The most one agent's tools/list result (`{"tools":[...]}`, compact JSON)
 * may hold, whatever registers tools: built-ins, declared tools and client
 * tools together. A runtime puts the whole inventory into its model's
 * context on every turn; 128 KiB is about 33k tokens (o200k, at the 4 bytes
 * a token of the built-in definitions), a sixth of a
 * 200k-token context, and holds the built-ins (about 6 KiB) with three
 * maximal stdio children (32 KiB each) beside them. 64 maximal client tools
 * (654 KiB) would fill a context before the first message.
 */
export const INVENTORY_BUDGET_BYTES = 128 * 1024;

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
  /**
   * Distinct emoji one reactor may put on one message: fewer than
   * `reactionEmoji`, so that no single agent can take every slot of a
   * message and lock everyone else out of reacting to it.
   */
  reactionEmojiPerReactor: 3,
  /** Agent ids (profile), which become message and review authors. */
  agentId: { chars: ENTITY_ID_MAX, bytes: ENTITY_ID_MAX },
  query: { chars: 200, bytes: 1024 },
  /** Profile-owned strings shown by team and agent reads. */
  profileName: { chars: 128, bytes: 256 },
  profileUrl: { chars: 512, bytes: 2048 },
  teamMembers: 100,
  agentHeaders: 32,
  agentTeams: 64,
  /** Cron rules (5 or 6 fields) and IANA time zone names, as schedules and triggers store them. */
  cron: { chars: 120, bytes: 120 },
  timeZone: { chars: 64, bytes: 64 },
  /** The profile revision a caller read and passes back as expectedRevision. */
  profileRevision: { chars: 64, bytes: 64 },
  /** A delivery failure of a scheduled message, as the daemon records it. */
  runError: { chars: 500, bytes: 1024 },
  approvalTitle: { chars: 200, bytes: 1024 },
  approvalDetail: { chars: 10000, bytes: 20480 },
  /** The note a person writes with a decision, and a step's completion/failure note. */
  decisionNote: { chars: 2000, bytes: 4096 },
  planName: { chars: 200, bytes: 1024 },
  planDescription: { chars: 2000, bytes: 4096 },
  stepName: { chars: 100, bytes: 256 },
  stepDescription: { chars: 300, bytes: 600 },
  /** Steps of one plan version, and so of one run. */
  planSteps: 30,
  stepNote: { chars: 500, bytes: 1024 },
  /** Problems one workflow validation reports (the rest are counted, not listed). */
  validationProblems: 20,
  validationPath: { chars: 64, bytes: 64 },
  validationMessage: { chars: 200, bytes: 300 },
  /**
   * A workflow log entry's event name and detail, as the daemon writes them.
   * A detail quotes a step name, the agent and its note, so it holds all three.
   */
  logEvent: { chars: 40, bytes: 40 },
  logDetail: { chars: 800, bytes: 1600 },
  /** Knowledge and memory locators: a relative path (docId) and a title. */
  docPath: { chars: 512, bytes: 1024 },
  docTitle: { chars: 200, bytes: 512 },
  snippet: { chars: 320, bytes: 1024 },
  /** One kb_fetch chunk, in JSON bytes (escapes included). */
  fetchText: { chars: 8192, bytes: 8192 },
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

/**
 * Cuts text at a code point boundary so that it has at most maxChars code
 * points and its JSON spelling at most maxBytes bytes, ending a cut text with
 * an ellipsis. For text the daemon produces from files or services (snippets,
 * titles, log details), which must respect the bound its schema states.
 */
export function clipJson(text: string, l: { chars: number; bytes: number }): string {
  if (jsonBytes(text) <= l.bytes && countCodePoints(text) <= l.chars && isWellFormedText(text)) return text;
  const room = l.bytes - 3; // the ellipsis is 3 bytes
  let used = 0;
  let n = 0;
  let out = '';
  for (const ch of text) {
    const cost = jsonBytes(ch);
    if (used + cost > room || n + 1 > l.chars - 1) break;
    if (/\p{Cs}/u.test(ch)) continue;
    out += ch;
    used += cost;
    n++;
  }
  return `${out}…`;
}

function countCodePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
