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

/**
 * The most one code point can cost as JSON: a C0 control character is
 * written `\u0001` (6 bytes); a quote or backslash costs 2, an emoji 4.
 */
const MAX_JSON_BYTES_PER_CHAR = 6;

/**
 * The code points that can never exceed a byte budget, whatever they are:
 * the `maxLength` a schema publishes for free text, so that every string it
 * admits is accepted (specs/catalog.md, "Published bounds").
 */
function safeChars(bytes: number): number {
  return Math.floor(bytes / MAX_JSON_BYTES_PER_CHAR);
}

/**
 * Text a caller writes and the daemon stores and shows back: the byte
 * budget is what a result can afford, and `chars` is derived from it
 * (specs/catalog.md, "Published bounds").
 */
const written = (bytes: number) => ({ chars: safeChars(bytes), bytes }) as const;

export const LIMITS = {
  taskTitle: written(2048),
  taskDescription: written(40960),
  handle: written(512),
  projectName: written(1024),
  projectDescription: written(40960),
  reviewBody: written(40960),
  /**
   * What a message page of one can afford beside the rest of the message,
   * three times over in an MCP result, leaving the budget's 15% headroom:
   * 1800 code points.
   */
  messageContent: written(10800),
  emoji: written(64),
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
  query: written(1024),
  /** Profile-owned strings shown by team and agent reads. */
  profileName: { chars: 128, bytes: 256 },
  profileUrl: { chars: 512, bytes: 2048 },
  teamMembers: 100,
  agentHeaders: 32,
  agentTeams: 64,
  /**
   * Cron rules (5 or 6 fields) and IANA time zone names, as schedules and
   * triggers store them. ASCII by their patterns (catalog/common.ts), so a
   * code point costs at most one byte and both figures agree.
   */
  cron: { chars: 120, bytes: 120 },
  timeZone: { chars: 64, bytes: 64 },
  /** The profile revision a caller read and passes back as expectedRevision. */
  profileRevision: { chars: 64, bytes: 64 },
  /** A delivery failure of a scheduled message, as the daemon records it. */
  runError: { chars: 500, bytes: 1024 },
  approvalTitle: written(1024),
  approvalDetail: written(20480),
  /** The note a person writes with a decision, and a step's completion/failure note. */
  decisionNote: written(4096),
  planName: written(1024),
  planDescription: written(4096),
  stepName: written(256),
  stepDescription: written(600),
  /** Steps of one plan version, and so of one run. */
  planSteps: 30,
  stepNote: written(1024),
  /**
   * Messages one turn answers: those that arrive while the agent is busy on
   * the same target join the queued turn up to this many, then a new turn
   * queues behind it.
   */
  turnMessages: 50,
  /** Queued turns per agent; one more is recorded as dropped (queue_full) for the operator to see. */
  turnQueue: 100,
  /**
   * The UTF-8 bytes of message text a turn's prompt inlines. Text beyond it
   * is named by message id with a hint to read it with message_history_read,
   * so a burst of long messages cannot make a prompt the runtime refuses.
   */
  turnPromptTextBytes: 32 * 1024,
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
  return { maxLength: l.chars, [JSON_BYTES_KEYWORD]: l.bytes } as {
    maxLength: number;
    'x-maxJsonBytes': number;
  };
}

/**
 * The input fragment of free text whose limit other sources share (profile
 * names and URLs, which profile.json may hold longer): the byte budget, and
 * as `maxLength` only the code points that always fit it.
 */
export function inputText(l: { chars: number; bytes: number }) {
  return textLimit({ chars: Math.min(l.chars, safeChars(l.bytes)), bytes: l.bytes });
}

/**
 * The input fragment of a string that is only compared or looked up, never
 * stored or shown back (cursors, search queries, lookup keys): `maxLength`
 * is the whole rule, and the byte limit is whatever those code points can
 * cost, so it never refuses what `maxLength` admits.
 */
export function lookupText(chars: number) {
  return textLimit({ chars, bytes: chars * MAX_JSON_BYTES_PER_CHAR });
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
  if (jsonBytes(text) <= l.bytes && countCodePoints(text) <= l.chars && isWellFormedText(text))
    return text;
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
