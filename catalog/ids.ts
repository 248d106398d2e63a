/**
 * The one grammar for server and agent ids. Both end up verbatim in URL path
 * segments (`/servers/<id>/agents/<id>`), in message authors (`agent:<id>`)
 * and in direct-message targets (`dm:<id>`), so an id is only accepted when
 * it survives all three unchanged:
 *
 * - only RFC 3986 unreserved characters other than `~` (letters, digits,
 *   `.`, `_`, `-`), so encoding it for a path segment is the identity;
 * - the first character is a letter or digit, which rules out `.` and `..`
 *   (clients and URL parsers resolve those segments away) and leading dashes
 *   that look like CLI flags;
 * - 1 to 128 characters (ASCII, so also 1 to 128 bytes).
 *
 * Data and pure functions only: the CLI imports it too.
 */
export const ENTITY_ID_MAX = 128;

/** The bare grammar, for embedding in larger patterns (authors, targets). */
export const ENTITY_ID_BODY = `[A-Za-z0-9][A-Za-z0-9._-]{0,${ENTITY_ID_MAX - 1}}`;

/** A person as the operator side names one (`human:<handle>`): the author of their messages, the caller of their writes. */
export const PERSON_PATTERN = `^human:${ENTITY_ID_BODY}$`;

/** Who acts when a person's command or console action names nobody (`--as` not given). */
export const DEFAULT_PERSON = 'human:operator';

/** JSON Schema / RegExp source for a whole id. */
export const ENTITY_ID_PATTERN = `^${ENTITY_ID_BODY}$`;

const ENTITY_ID_RE = new RegExp(ENTITY_ID_PATTERN);

export function isEntityId(v: unknown): v is string {
  return typeof v === 'string' && ENTITY_ID_RE.test(v);
}

/** One sentence for error messages; never echoes the refused value. */
export const ENTITY_ID_RULE = `1-${ENTITY_ID_MAX} characters of A-Z a-z 0-9 . _ -, starting with a letter or digit`;

/**
 * The server id every operator command uses when `--server` is not given
 * (`run`, `message post|history`, the read commands), and the console's too:
 * one default, so what a person posts is what an agent started with the same
 * defaults reads.
 */
export const DEFAULT_SERVER = 'local';
