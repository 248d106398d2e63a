import type { SchemaObject } from './descriptor.js';
import { JSON_BYTES_KEYWORD } from './limits.js';

/**
 * Marks an array in a page-shaped output that is never paged (always returned
 * whole), so its worst case counts maxItems items, not the page of one.
 */
export const WHOLE_LIST_KEYWORD = 'x-wholeList';

/**
 * The largest serialization, in UTF-8 bytes, that any value valid against a
 * schema can have. Strings cost their `x-maxJsonBytes`, or 6 bytes per code
 * point of maxLength (`\u0001` is the most expensive spelling of one code
 * point), whichever is smaller; arrays cost maxItems items; objects cost every
 * property present. A schema without such a bound somewhere throws, naming the
 * path: an unbounded field is exactly what this exists to catch.
 */
export function worstCaseBytes(
  schema: SchemaObject,
  path = '',
  opts: { pageOfOne?: boolean } = {},
): number {
  const s = schema as Record<string, unknown>;
  if ('const' in s) return Buffer.byteLength(JSON.stringify(s.const), 'utf8');
  if (Array.isArray(s.enum))
    return Math.max(...s.enum.map((v) => Buffer.byteLength(JSON.stringify(v), 'utf8')));
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const alts = (s.anyOf ?? s.oneOf) as SchemaObject[];
    return Math.max(...alts.map((a, i) => worstCaseBytes(a, `${path}/anyOf/${i}`)));
  }
  const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
  return Math.max(...types.map((t) => worstOfType(t, s, path, opts)));
}

function worstOfType(
  type: string,
  s: Record<string, unknown>,
  path: string,
  opts: { pageOfOne?: boolean },
): number {
  switch (type) {
    case 'null':
      return 4;
    case 'boolean':
      return 5;
    case 'integer':
    case 'number': {
      const digits = (n: unknown) => (typeof n === 'number' ? String(n).length : 17);
      if (type === 'integer' && typeof s.maximum === 'number' && typeof s.minimum === 'number') {
        return Math.max(digits(s.maximum), digits(s.minimum));
      }
      // Store integers (revisions, counts) are safe integers: at most 16 digits and a sign.
      if (type === 'integer') return 17;
      // A finite double is at most 24 characters as JSON writes it (-2.2250738585072014e-308).
      return 24;
    }
    case 'string': {
      const bytes = s[JSON_BYTES_KEYWORD];
      const chars = s.maxLength;
      const fromChars = typeof chars === 'number' ? chars * 6 : Infinity;
      const fromBytes = typeof bytes === 'number' ? bytes : Infinity;
      const worst = Math.min(fromChars, fromBytes);
      if (!Number.isFinite(worst))
        throw new Error(`${path || '/'}: string without maxLength or ${JSON_BYTES_KEYWORD}`);
      return worst + 2;
    }
    case 'array': {
      const items = s.items as SchemaObject | undefined;
      // A list returned whole beside a page (a run's steps next to its log page) is counted in full.
      const max = opts.pageOfOne && s[WHOLE_LIST_KEYWORD] !== true ? 1 : s.maxItems;
      if (!items || typeof max !== 'number')
        throw new Error(`${path || '/'}: array without maxItems`);
      return 2 + max * worstCaseBytes(items, `${path}/items`) + Math.max(0, max - 1);
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, SchemaObject>;
      if (s.additionalProperties !== false)
        throw new Error(`${path || '/'}: object open to unknown properties`);
      // A page object (one with hasMore) is measured with its collection at one item: the page of one.
      const isPage = 'hasMore' in props;
      const parts = Object.entries(props).map(
        ([k, v]) =>
          Buffer.byteLength(JSON.stringify(k), 'utf8') +
          1 +
          worstCaseBytes(v, `${path}/${k}`, { pageOfOne: isPage }),
      );
      return 2 + parts.reduce((a, b) => a + b, 0) + Math.max(0, parts.length - 1);
    }
    default:
      throw new Error(`${path || '/'}: no worst case for type ${String(type)}`);
  }
}

/** An Exec success envelope `{"ok":true,"data":...}` around data of the given worst size. */
export function execEnvelopeBytes(dataBytes: number): number {
  return '{"ok":true,"data":}'.length + dataBytes;
}

/**
 * An MCP tools/call result frame that carries the data twice: as
 * structuredContent and as a JSON string in a text block. Re-escaping JSON
 * text at most doubles it (every `"` and `\` gains a backslash), so the frame
 * is bounded by three times the data plus the frame's own keys. This is the
 * larger of the two frame shapes a client can get, so a limit that fits it
 * fits both.
 */
export function mcpFrameBytes(dataBytes: number): number {
  const shell = '{"content":[{"type":"text","text":""}],"structuredContent":,"isError":false}'
    .length;
  return shell + 2 * dataBytes + dataBytes;
}
