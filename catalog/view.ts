import type { Catalog } from './catalog.js';
import type { Risk, SchemaObject } from './descriptor.js';
import { standaloneSchema } from './schemas.js';

/**
 * The JSON a runtime gets from `GET {base}/catalog`: every action it may call,
 * with its help and standalone schemas. Built from the catalog so the route,
 * the CLI help and the OpenAPI document describe the same thing.
 */
export interface CatalogViewAction {
  readonly domain: string;
  readonly action: string;
  readonly summary: string;
  readonly help: string;
  readonly example: unknown;
  readonly risk: Risk;
  readonly inputSchema: SchemaObject;
  readonly outputSchema: SchemaObject;
}

export interface CatalogView {
  readonly domains: readonly { readonly domain: string; readonly summary: string }[];
  readonly actions: readonly CatalogViewAction[];
}

export function catalogView(catalog: Catalog): CatalogView {
  return {
    domains: Object.entries(catalog.domains).map(([domain, summary]) => ({ domain, summary })),
    actions: [...catalog.entries.values()].map(({ descriptor: d }) => ({
      domain: d.domain,
      action: d.action,
      summary: d.summary,
      help: d.help,
      example: d.example,
      risk: d.risk,
      inputSchema: standaloneSchema(d, 'input'),
      outputSchema: standaloneSchema(d, 'output'),
    })),
  };
}

/** JSON Schema of {@link CatalogView} (for the OpenAPI document). */
export const catalogViewSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['domains', 'actions'],
  properties: {
    domains: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['domain', 'summary'],
        properties: { domain: { type: 'string' }, summary: { type: 'string' } },
      },
    },
    actions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['domain', 'action', 'summary', 'help', 'example', 'risk', 'inputSchema', 'outputSchema'],
        properties: {
          domain: { type: 'string' },
          action: { type: 'string' },
          summary: { type: 'string' },
          help: { type: 'string' },
          example: {},
          risk: { type: 'string', enum: ['read', 'side_effect'] },
          inputSchema: { type: 'object', description: 'Standalone JSON Schema (draft 2020-12) of the input.' },
          outputSchema: { type: 'object', description: 'Standalone JSON Schema (draft 2020-12) of data in a success envelope.' },
        },
      },
    },
  },
} as const;
