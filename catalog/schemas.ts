import type { ActionDescriptor, SchemaObject } from './descriptor.js';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const SCHEMA_BASE = 'https://agentteam.dev/schemas/exec';

type SchemaKind = 'input' | 'output';

function schemaId(domain: string, action: string, kind: SchemaKind): string {
  return `${SCHEMA_BASE}/${domain}/${action}.${kind}.json`;
}

/**
 * A descriptor schema made standalone: the same keywords plus `$schema` and
 * `$id`, so a tool that knows nothing of the catalog can validate against it.
 */
export function standaloneSchema(d: ActionDescriptor, kind: SchemaKind): SchemaObject {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: schemaId(d.domain, d.action, kind),
    ...(d[kind] as SchemaObject),
  };
}
