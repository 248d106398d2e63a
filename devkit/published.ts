import { TARGET_PATTERN } from '../catalog/mcp-tools.js';

/**
 * Values built from a published input schema (what `tools/list`,
 * `--input-schema` and the OpenAPI document show), for tests that hold the
 * daemon to it: the largest string each string field admits, written in
 * one kind of character, and valid minimal values for everything else.
 */

export type Schema = Record<string, unknown> & {
  type?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  minimum?: number;
};

/**
 * The characters a string is written in, each the most expensive of its
 * kind as JSON: ASCII 1 byte, an astral emoji 4 (and 2 UTF-16 code units),
 * a quote 2 (`\"`), a C0 control 6 (`\u0001`).
 */
export const UNITS = { ascii: 'a', emoji: '\u{1F600}', quote: '"', control: '\u0001' } as const;
export type Unit = keyof typeof UNITS;

/** A string field of a schema: its place (property names, `0` for an array item) and its schema. */
export interface StringField {
  readonly path: readonly string[];
  readonly schema: Schema;
}

const isString = (s: Schema): boolean =>
  s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));

/** Every string field that is not an enum, nested ones too (objects, array items, the string branch of an anyOf). */
export function stringFields(s: Schema, path: readonly string[] = []): StringField[] {
  if (Array.isArray(s.anyOf)) return s.anyOf.flatMap((b) => stringFields(b, path));
  if (isString(s)) return s.enum ? [] : [{ path, schema: s }];
  if (s.items) return stringFields(s.items, [...path, '0']);
  return Object.entries(s.properties ?? {}).flatMap(([k, v]) => stringFields(v, [...path, k]));
}

/**
 * How the longest string a pattern admits is written with a unit, for each
 * pattern the published schemas use; undefined when the pattern admits no
 * such character. A pattern missing here fails the test that meets it, so a
 * new one is never skipped silently.
 */
const BY_PATTERN: Record<string, (unit: Unit, n: number) => string | undefined> = {
  // Store ids: a kind, `_`, and up to 40 letters or digits.
  '^[a-z]+_[0-9A-Za-z]{6,40}$': (u, n) =>
    u === 'ascii' ? `${'a'.repeat(n - 41)}_${'A'.repeat(40)}` : undefined,
  '^msg_[0-9A-Za-z]{6,40}$': (u, n) =>
    u === 'ascii' ? `msg_${'A'.repeat(Math.min(n, 44) - 4)}` : undefined,
  '^[A-Za-z0-9._:-]{1,128}$': (u, n) => (u === 'ascii' ? 'k'.repeat(Math.min(n, 128)) : undefined),
  '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$': (u, n) =>
    u === 'ascii' ? 'a'.repeat(Math.min(n, 128)) : undefined,
  '^[A-Za-z_][A-Za-z0-9_]{0,127}$': (u, n) =>
    u === 'ascii' ? 'A'.repeat(Math.min(n, 128)) : undefined,
  // dm:<agent id> is the longest kind of target (3 + 128).
  [TARGET_PATTERN]: (u, n) =>
    u === 'ascii' ? `dm:${'a'.repeat(Math.min(n, 131) - 3)}` : undefined,
  // RFC 3339 with nanoseconds and an offset is the longest instant; a future one, since schedules refuse the past.
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$': (u) =>
    u === 'ascii' ? '2099-01-01T00:00:00.123456789+00:00' : undefined,
  '^[-0-9A-Za-z*,/?#@ ]+$': (u, n) => (u === 'ascii' ? `0 9 * * 1${' '.repeat(n - 9)}` : undefined),
  '^[-0-9A-Za-z_+/]+$': (u, n) => (u === 'ascii' ? 'a'.repeat(n) : undefined),
  // Anything but `/ @ ? #` and white space in the host: every unit here.
  '^https?://[^/@?#\\s]+(/[^?#\\s]*)?$': (u, n) => `https://${UNITS[u].repeat(n - 8)}`,
  '^\\S{1,10}$': (u, n) => UNITS[u].repeat(n),
};

/** The longest string `s` admits written in `unit` (code points; patterned fields as long as their pattern allows), or undefined if it admits none. */
export function longest(s: Schema, unit: Unit): string | undefined {
  const n = s.maxLength;
  if (typeof n !== 'number') throw new Error(`a string without maxLength: ${JSON.stringify(s)}`);
  if (s.pattern === undefined) return UNITS[unit].repeat(n);
  const build = BY_PATTERN[s.pattern];
  if (!build) throw new Error(`no maximal value known for the pattern ${s.pattern}`);
  return build(unit, n);
}

/** A string one code point longer than `maxLength`: the longest value (or any admitted one) padded with `unit`. */
export function oneTooLong(s: Schema, unit: Unit): string {
  const base = longest(s, unit) ?? longest(s, 'ascii') ?? '';
  return base + UNITS[unit].repeat((s.maxLength as number) + 1 - [...base].length);
}

/** A valid minimal value of a schema: required properties only, the first enum value, the minimum, the longest ASCII string. */
export function minimal(s: Schema): unknown {
  if ('const' in s) return s.const;
  if (s.enum) return s.enum[0];
  if (Array.isArray(s.anyOf)) return minimal(s.anyOf.find((b) => b.type !== 'null') ?? s.anyOf[0]!);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return longest(s, 'ascii');
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => minimal(s.items!));
    default:
      return Object.fromEntries((s.required ?? []).map((k) => [k, minimal(s.properties![k]!)]));
  }
}

/**
 * For an action with ops (an `allOf` of `if {op} then {...}` rules): a
 * minimal input of the first op that takes `field`, its other required
 * fields (and the first of its alternatives, unless `field` is one) filled
 * in; undefined for a schema without op rules.
 */
function minimalOpTaking(s: Schema, field: string): Record<string, unknown> | undefined {
  for (const rule of s.allOf ?? []) {
    const op = (rule.if as Schema | undefined)?.properties?.op?.const;
    const then = rule.then as Schema | undefined;
    if (op === undefined || !then?.properties || !(field in then.properties)) continue;
    const alternatives = [...(then.oneOf ?? []), ...(then.anyOf ?? [])].flatMap(
      (a) => a.required ?? [],
    );
    const first = alternatives.includes(field) ? [] : alternatives.slice(0, 1);
    const fields = [...(then.required ?? []), ...first].filter((f) => f !== field);
    return { op, ...Object.fromEntries(fields.map((k) => [k, minimal(s.properties![k]!)])) };
  }
  return undefined;
}

/** A minimal valid input with `value` placed at `path` (the objects and array items on the way filled in minimally). */
export function inputWith(
  s: Schema,
  path: readonly string[],
  value: string,
): Record<string, unknown> {
  const root = (minimalOpTaking(s, path[0] ?? '') ?? minimal(s)) as Record<string, unknown>;
  let here: Record<string, unknown> = root;
  let schema: Schema = s;
  for (const [i, key] of path.entries()) {
    const sub = schema.items ?? schema.properties![key]!;
    if (i === path.length - 1) {
      here[key] = value;
      break;
    }
    here[key] ??= minimal(sub);
    const next = here[key] as Record<string, unknown>;
    if (Array.isArray(next) && next.length === 0) next.push(minimal(sub.items!));
    here = next;
    schema = sub;
  }
  return root;
}

/** The JSON pointer of a field, as validation_failed details name it. */
export const pointer = (path: readonly string[]): string => path.map((k) => `/${k}`).join('');
