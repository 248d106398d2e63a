import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { MCP_TOOLS } from '../catalog/mcp-tools.js';
import { defaultCatalog } from '../catalog/catalog.js';
import { JSON_BYTES_KEYWORD, isWellFormedText, jsonBytes } from '../catalog/limits.js';
import { decodeStrictJson } from '../daemon/http/strict-json.js';
import { scale } from './scale.js';

/**
 * The round-trip properties' strings and rules: what a field's limits
 * accept (computed apart from ajv), strings over the whole Unicode range and
 * around each limit, JSON text with and without \u escapes, and the check
 * that a value read back is the same code units.
 */

/** Cases per field: 400 in `npm test`, 2,000 at soak scale (scale.ts); AGENTTEAM_PROPERTY_RUNS overrides both. */
export const RUNS = Number(process.env.AGENTTEAM_PROPERTY_RUNS ?? scale(400, 2000));

export interface FieldRule {
  readonly minLength: number;
  readonly maxLength: number;
  readonly maxBytes: number;
  readonly pattern?: RegExp;
}

export function ruleOf(field: Record<string, unknown>): FieldRule {
  const schema = Array.isArray(field.anyOf)
    ? (field.anyOf as Record<string, unknown>[]).find((x) => x.type === 'string')!
    : field;
  return {
    minLength: (schema.minLength as number | undefined) ?? 0,
    maxLength: schema.maxLength as number,
    maxBytes: schema[JSON_BYTES_KEYWORD] as number,
    ...(typeof schema.pattern === 'string' ? { pattern: new RegExp(schema.pattern, 'u') } : {}),
  };
}

/** What the limits say, computed independently of ajv. */
export function acceptable(s: string, r: FieldRule): boolean {
  const chars = s.length - (s.match(/[\ud800-\udbff][\udc00-\udfff]/g)?.length ?? 0);
  return (
    isWellFormedText(s) &&
    chars >= r.minLength &&
    chars <= r.maxLength &&
    jsonBytes(s) <= r.maxBytes &&
    (r.pattern?.test(s) ?? true)
  );
}

const SPECIALS = [
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '"',
  '\\',
  '/',
  '\n',
  '\r',
  '\t',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\ufffe',
  '\uffff',
  '\u{10ffff}',
  '\u{1f600}',
  'e\u0301',
  '\u00e9',
  ' ',
];

const unit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIALS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }) },
);

/** Short strings anywhere in Unicode, and strings right around the field's byte and character limits. */
export function stringsFor(r: FieldRule): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 14, arbitrary: fc.array(unit, { maxLength: 24 }).map((xs) => xs.join('')) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(unit, fc.integer({ min: -2, max: 2 }), fc.array(unit, { maxLength: 3 }))
        .map(([u, d, tail]) => {
          const n = Math.max(0, Math.floor(r.maxBytes / Math.max(1, jsonBytes(u))) + d);
          return u.repeat(Math.min(n, r.maxLength + 2)) + tail.join('');
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: -2, max: 2 })
        .map((d) => 'a'.repeat(Math.max(0, r.maxLength + d))),
    },
  );
}

/** JSON text of a value, with every non-ASCII code unit written as a \u escape when `escaped` is set. */
export function jsonText(value: unknown, escaped: boolean): string {
  const text = JSON.stringify(value);
  return escaped
    ? text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
}

/** The daemon's own body decoding: UTF-8 bytes, strict JSON. */
export function decode(text: string): Record<string, unknown> {
  return decodeStrictJson(new TextEncoder().encode(text)) as Record<string, unknown>;
}

export function sameText(got: unknown, want: string, where: string): void {
  assert.equal(typeof got, 'string', where);
  assert.ok(got === want, `${where}: read back differs`);
  assert.deepEqual(Buffer.from(got as string, 'utf8'), Buffer.from(want, 'utf8'), where);
}

export const inputProp = (domain: string, action: string, field: string) =>
  (
    defaultCatalog().get(domain, action)!.descriptor.input as {
      properties: Record<string, Record<string, unknown>>;
    }
  ).properties[field]!;
export const toolProp = (tool: string, field: string) =>
  (
    MCP_TOOLS.find((t) => t.name === tool)!.inputSchema as {
      properties: Record<string, Record<string, unknown>>;
    }
  ).properties[field]!;

/** fc.assert, with the failing field and the property's own error in the message. */
export async function assertProperty(
  name: string,
  property: fc.IAsyncProperty<[string, boolean]>,
  runs = RUNS,
): Promise<void> {
  try {
    await fc.assert(property, { numRuns: runs });
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    throw new Error(
      `${name}: ${(err as Error).message.split('\n').slice(0, 3).join(' ')} -- ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}
