/**
 * The JSON Schema subset that tools coming from outside the daemon (client
 * tools, declared tools) may use as their input schema. The schema is
 * forwarded to every agent's harness as it is, so it is checked in full
 * before it is accepted: every keyword must be known, every keyword value
 * must have the right type, and nesting and size are bounded. Nothing is
 * resolved, compiled or evaluated (no $ref, no regex compilation).
 *
 * Pure: no I/O. The keyword table and the limits are parameters, so the
 * HTTP/SSE client tools (CLIENT_TOOL_SUBSET) and the stdio transport
 * (STDIO_TOOL_SUBSET) share one checker with their own lists.
 */

/** What a keyword's value must be. */
type KeywordKind =
  | 'type' // a primitive type name or a non-empty list of distinct ones
  | 'schema' // one nested schema
  | 'schemaOrBool' // a nested schema or true/false (additionalProperties)
  | 'schemaMap' // an object whose every value is a nested schema (properties, $defs)
  | 'schemaList' // a non-empty array of nested schemas (anyOf, allOf, oneOf, prefixItems)
  | 'stringList' // an array of distinct strings (required)
  | 'valueList' // a non-empty array of any JSON values (enum)
  | 'array' // an array of any JSON values (examples)
  | 'any' // any JSON value (const, default)
  | 'string'
  | 'number'
  | 'positiveNumber'
  | 'nonNegativeInteger'
  | 'boolean';

export interface SchemaSubset {
  readonly keywords: Readonly<Record<string, KeywordKind>>;
  /** Deepest nesting level; the root is level 1. */
  readonly maxDepth: number;
  /** Most schemas (root included) in one document. */
  readonly maxSchemas: number;
  /** Whether a nested schema may be `true`/`false` (the root never may). */
  readonly booleanSchemas: boolean;
}

const PRIMITIVE_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
]);

const COMMON: Record<string, KeywordKind> = {
  type: 'type',
  properties: 'schemaMap',
  required: 'stringList',
  items: 'schema',
  additionalProperties: 'schemaOrBool',
  anyOf: 'schemaList',
  oneOf: 'schemaList',
  allOf: 'schemaList',
  enum: 'valueList',
  const: 'any',
  default: 'any',
  examples: 'array',
  description: 'string',
  title: 'string',
  format: 'string',
  pattern: 'string',
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'number',
  exclusiveMaximum: 'number',
  multipleOf: 'positiveNumber',
  minLength: 'nonNegativeInteger',
  maxLength: 'nonNegativeInteger',
  minItems: 'nonNegativeInteger',
  maxItems: 'nonNegativeInteger',
  minProperties: 'nonNegativeInteger',
  maxProperties: 'nonNegativeInteger',
  uniqueItems: 'boolean',
  deprecated: 'boolean',
  readOnly: 'boolean',
  writeOnly: 'boolean',
  $comment: 'string',
};

/** Client tools over HTTP/SSE: the keyword list of the client-tools contract, 16 levels, 512 schemas. */
export const CLIENT_TOOL_SUBSET: SchemaSubset = {
  keywords: { ...COMMON, $schema: 'string' },
  maxDepth: 16,
  maxSchemas: 512,
  booleanSchemas: false,
};

/**
 * Client tools over stdio: a wider keyword list (no $schema), boolean
 * sub-schemas. Its real bounds are the stdio limits table (8192 bytes, 16
 * containers deep, catalog/stdio-tools.ts); the schema count here only has
 * to be no tighter than what 8192 bytes can hold.
 */
export const STDIO_TOOL_SUBSET: SchemaSubset = {
  keywords: {
    ...COMMON,
    $defs: 'schemaMap',
    definitions: 'schemaMap',
    patternProperties: 'schemaMap',
    not: 'schema',
    contains: 'schema',
    propertyNames: 'schema',
    prefixItems: 'schemaList',
    minContains: 'nonNegativeInteger',
    maxContains: 'nonNegativeInteger',
  },
  maxDepth: 16,
  maxSchemas: 8192,
  booleanSchemas: true,
};

interface SubsetProblem {
  /** JSONPath-like location: `$`, `$.properties.ref.type`, `$.anyOf[0]`. */
  readonly path: string;
  readonly message: string;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

class Found extends Error {
  constructor(readonly problem: SubsetProblem) {
    super(`at ${problem.path}: ${problem.message}`);
  }
}

/**
 * Checks one input schema against the subset. Returns null when it is
 * accepted, else the first problem found (depth-first, in key order).
 * `requireObjectRoot` demands `"type": "object"` at the root.
 */
export function checkSchemaSubset(
  schema: unknown,
  subset: SchemaSubset,
  opts: { requireObjectRoot?: boolean } = {},
): SubsetProblem | null {
  let count = 0;
  const fail = (path: string, message: string): never => {
    throw new Found({ path, message });
  };

  function visit(node: unknown, path: string, depth: number): void {
    count++;
    if (count > subset.maxSchemas) fail(path, `more than ${subset.maxSchemas} schemas`);
    if (depth > subset.maxDepth) fail(path, `nested deeper than ${subset.maxDepth} levels`);
    if (typeof node === 'boolean') {
      if (!subset.booleanSchemas || depth === 1) fail(path, 'a schema must be an object');
      return;
    }
    if (!isObject(node)) fail(path, `a schema must be an object, not ${describe(node)}`);
    const obj = node as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const kind = Object.hasOwn(subset.keywords, key) ? subset.keywords[key] : undefined;
      const at = child(path, key);
      if (kind === undefined) fail(at, `unknown keyword "${key}"`);
      keyword(kind!, obj[key], at, depth);
    }
  }

  function keyword(kind: KeywordKind, v: unknown, at: string, depth: number): void {
    switch (kind) {
      case 'type': {
        const names = Array.isArray(v) ? v : [v];
        if (Array.isArray(v) && v.length === 0) fail(at, 'type list must not be empty');
        const seen = new Set<string>();
        names.forEach((n, i) => {
          const where = Array.isArray(v) ? child(at, i) : at;
          if (typeof n !== 'string')
            fail(where, `type must be a string or a list of strings, not ${describe(n)}`);
          if (!PRIMITIVE_TYPES.has(n as string)) fail(where, `unknown type ${JSON.stringify(n)}`);
          if (seen.has(n as string)) fail(where, `type ${JSON.stringify(n)} is listed twice`);
          seen.add(n as string);
        });
        return;
      }
      case 'schema':
        if (Array.isArray(v)) fail(at, 'must be one schema (tuple form is not supported)');
        visit(v, at, depth + 1);
        return;
      case 'schemaOrBool':
        if (typeof v !== 'boolean') visit(v, at, depth + 1);
        return;
      case 'schemaMap':
        if (!isObject(v)) fail(at, `must be an object of schemas, not ${describe(v)}`);
        for (const [k, s] of Object.entries(v as Record<string, unknown>))
          visit(s, child(at, k), depth + 1);
        return;
      case 'schemaList':
        if (!Array.isArray(v) || v.length === 0) fail(at, 'must be a non-empty array of schemas');
        (v as unknown[]).forEach((s, i) => {
          visit(s, child(at, i), depth + 1);
        });
        return;
      case 'stringList': {
        if (!Array.isArray(v)) fail(at, `must be an array of strings, not ${describe(v)}`);
        const seen = new Set<string>();
        (v as unknown[]).forEach((s, i) => {
          if (typeof s !== 'string') fail(child(at, i), `must be a string, not ${describe(s)}`);
          if (seen.has(s as string)) fail(child(at, i), `${JSON.stringify(s)} is listed twice`);
          seen.add(s as string);
        });
        return;
      }
      case 'valueList':
        if (!Array.isArray(v) || v.length === 0) fail(at, 'must be a non-empty array');
        return;
      case 'array':
        if (!Array.isArray(v)) fail(at, `must be an array, not ${describe(v)}`);
        return;
      case 'any':
        return;
      case 'string':
        if (typeof v !== 'string') fail(at, `must be a string, not ${describe(v)}`);
        return;
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v))
          fail(at, `must be a number, not ${describe(v)}`);
        return;
      case 'positiveNumber':
        if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
          fail(at, 'must be a number greater than 0');
        return;
      case 'nonNegativeInteger':
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
          fail(at, 'must be a non-negative integer');
        return;
      case 'boolean':
        if (typeof v !== 'boolean') fail(at, `must be true or false, not ${describe(v)}`);
        return;
    }
  }

  try {
    visit(schema, '$', 1);
    if (opts.requireObjectRoot && (schema as Record<string, unknown>).type !== 'object') {
      return { path: '$.type', message: 'the root schema must have "type": "object"' };
    }
    return null;
  } catch (err) {
    if (err instanceof Found) return err.problem;
    throw err;
  }
}

/** The problem as one line: `at $.properties.ref.type: unknown type "bogus"`. */
export function formatSubsetProblem(p: SubsetProblem): string {
  return `at ${p.path}: ${p.message}`;
}
