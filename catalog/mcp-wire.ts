import type { McpToolDescriptor, ToolAnnotations } from './mcp-tool-descriptor.js';

/**
 * The form of a built-in tool that goes on the wire in tools/list. The
 * catalog's schemas are the validation schemas: the daemon compiles them
 * whole. What a client and its model are sent is derived from them here, so
 * the two cannot drift apart:
 *
 * - the input schema loses only the catalog's own keywords (`x-…`, such as
 *   `x-maxJsonBytes`), which no client or model implements; every standard
 *   keyword (type, required, pattern, maxLength, minimum, maximum, default,
 *   additionalProperties, descriptions) stays, and the byte limits they
 *   drop are still enforced by the daemon's validator;
 * - the output schema keeps the top level of the result (a closed object,
 *   its required fields and their types) for clients that check
 *   structuredContent against it (the MCP SDK client does), and leaves out
 *   the nested detail: no runtime puts an output schema in front of its
 *   model, and the daemon bounds its own results.
 *
 * specs/mcp.md ("What a runtime's model sees") gives the reasons and sources.
 */

interface WireTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations: ToolAnnotations;
}

/** Keywords whose value is a map of subschemas. */
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
/** Keywords whose value is a subschema or a list of them. */
const SCHEMA_VALUES = new Set([
  'items',
  'prefixItems',
  'additionalProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
]);

/** True for the catalog's own keywords, which only its validators implement. */
const isInternalKeyword = (key: string): boolean => key.startsWith('x-');

/**
 * A copy of `schema` keeping, at every level, the keywords `keep` accepts;
 * `rename`, when given, may spell a kept keyword that holds no schema
 * another way (a dialect without `const` takes a one-value `enum`).
 * Property names inside `properties` are data, never keywords, so they are
 * all kept.
 */
export function project(
  schema: unknown,
  keep: (key: string) => boolean,
  rename?: (key: string, value: unknown) => [string, unknown],
): unknown {
  if (Array.isArray(schema)) return schema.map((s) => project(s, keep, rename));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (!keep(key)) continue;
    if (
      SCHEMA_MAPS.has(key) &&
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value)
    ) {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [
          k,
          project(v, keep, rename),
        ]),
      );
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = project(value, keep, rename);
    } else if (rename) {
      const [k, v] = rename(key, value);
      out[k] = v;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The input schema as tools/list serves it: every standard keyword, no internal one. */
function wireInputSchema(schema: object): Record<string, unknown> {
  return project(schema, (k) => !isInternalKeyword(k)) as Record<string, unknown>;
}

/** The type part of one property of a result: its `type`, the types of its `anyOf` branches, or nothing (any value). */
function typeOf(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.type !== undefined) return { type: schema.type };
  if (Array.isArray(schema.anyOf))
    return { anyOf: (schema.anyOf as Record<string, unknown>[]).map(typeOf) };
  return {};
}

/**
 * The output schema as tools/list serves it: the result's top level (a
 * closed object, its required fields and the type of each). Nested bounds,
 * patterns and descriptions stay in the catalog; the daemon bounds its own
 * results.
 */
function wireOutputSchema(schema: object): Record<string, unknown> {
  const s = schema as {
    type?: unknown;
    required?: unknown;
    additionalProperties?: unknown;
    properties?: Record<string, Record<string, unknown>>;
  };
  return {
    type: s.type,
    ...(s.additionalProperties !== undefined
      ? { additionalProperties: s.additionalProperties }
      : {}),
    ...(s.required !== undefined ? { required: s.required } : {}),
    ...(s.properties
      ? {
          properties: Object.fromEntries(
            Object.entries(s.properties).map(([k, v]) => [k, typeOf(v)]),
          ),
        }
      : {}),
  };
}

/** The tools/list entry of a built-in tool, named `name` (the raw name unless a runtime's convention is asked for). */
export function wireTool(d: McpToolDescriptor, name: string = d.name): WireTool {
  return {
    name,
    title: d.title,
    description: d.description,
    inputSchema: wireInputSchema(d.inputSchema as object),
    outputSchema: wireOutputSchema(d.outputSchema as object),
    annotations: d.annotations,
  };
}
