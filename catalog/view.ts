import type { Catalog } from './catalog.js';
import type { Risk, SchemaObject } from './descriptor.js';

/**
 * The data of `GET {base}/catalog`: the domain index and every action a
 * runtime may call, with its help and schemas. Built from the catalog so the
 * route, the CLI help and the OpenAPI document describe the same thing.
 */
export interface CatalogViewAction {
  readonly domain: string;
  readonly action: string;
  readonly summary: string;
  readonly help: string;
  readonly risk: Risk;
  readonly example: unknown;
  readonly inputSchema: SchemaObject;
  readonly outputSchema: SchemaObject;
}

export interface CatalogView {
  /** Domain name to its one-line description. */
  readonly domains: Readonly<Record<string, string>>;
  readonly actions: readonly CatalogViewAction[];
}

export function catalogView(catalog: Catalog): CatalogView {
  return {
    domains: catalog.domains,
    actions: [...catalog.entries.values()].map(({ descriptor: d }) => ({
      domain: d.domain,
      action: d.action,
      summary: d.summary,
      help: d.help,
      risk: d.risk,
      example: d.example,
      inputSchema: d.input as SchemaObject,
      outputSchema: d.output as SchemaObject,
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
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Domain name to its one-line description.',
    },
    actions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'domain',
          'action',
          'summary',
          'help',
          'risk',
          'example',
          'inputSchema',
          'outputSchema',
        ],
        properties: {
          domain: { type: 'string' },
          action: { type: 'string' },
          summary: { type: 'string' },
          help: { type: 'string' },
          risk: { type: 'string', enum: ['read', 'side_effect'] },
          example: {},
          inputSchema: { type: 'object', description: 'JSON Schema (draft 2020-12) of the input.' },
          outputSchema: {
            type: 'object',
            description: 'JSON Schema (draft 2020-12) of `data` in a success envelope.',
          },
        },
      },
    },
  },
} as const;
