import type { Catalog } from '../../catalog/catalog.js';
import type { SchemaObject } from '../../catalog/descriptor.js';
import { errorEnvelopeSchema } from '../../catalog/envelope.js';
import { ERROR_TABLE, type ErrorCode } from '../../catalog/errors.js';
import { JSON_SCHEMA_DIALECT } from '../../catalog/schemas.js';
import { catalogViewSchema } from '../../catalog/view.js';

/** Codes the CLI produces locally; they never come from the HTTP route. */
const CLI_ONLY: readonly ErrorCode[] = ['usage'];

export function pascal(...parts: string[]): string {
  return parts
    .flatMap((p) => p.split(/[^A-Za-z0-9]+/))
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

export function successEnvelope(dataRef: string): SchemaObject {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['ok', 'data'],
    properties: { ok: { const: true }, data: { $ref: dataRef } },
  };
}

/** One response per HTTP status of the closed error table, naming the codes it carries. */
export function errorResponses(): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [code, row] of Object.entries(ERROR_TABLE) as [
    ErrorCode,
    (typeof ERROR_TABLE)[ErrorCode],
  ][]) {
    if (CLI_ONLY.includes(code)) continue;
    byStatus.set(row.http, [...(byStatus.get(row.http) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status) ?? [];
    const note =
      status === 403 ? ' Every authentication failure gets the same body, byte for byte.' : '';
    out[String(status)] = {
      description: `Error envelope with code ${codes.join(', ')}.${note}`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return out;
}

/** OpenAPI 3.1 description of the Exec routes of one runtime authorization, built from the catalog. */
export function openApiDocument(catalog: Catalog): SchemaObject {
  const { $schema: _s, $id: _i, ...errorEnvelope } = errorEnvelopeSchema;
  const schemas: Record<string, unknown> = {
    ErrorEnvelope: errorEnvelope,
    CatalogView: catalogViewSchema,
  };
  const errors = errorResponses();
  const paths: Record<string, unknown> = {
    '/catalog': {
      get: {
        operationId: 'getCatalog',
        summary: 'The runtime catalog this authorization is pinned to.',
        tags: ['catalog'],
        responses: {
          '200': {
            description: 'Success envelope whose data is the catalog.',
            content: {
              'application/json': { schema: successEnvelope('#/components/schemas/CatalogView') },
            },
          },
          ...errors,
        },
      },
    },
  };
  for (const { descriptor: d, inventory } of catalog.entries.values()) {
    const base = pascal(d.domain, d.action);
    schemas[`${base}Input`] = d.input;
    schemas[`${base}Output`] = d.output;
    paths[`/${d.domain}/${d.action}`] = {
      post: {
        operationId: `${d.domain}.${d.action}`,
        summary: d.summary,
        description: d.help,
        tags: [d.domain],
        'x-agentteam-risk': d.risk,
        'x-agentteam-result-policy': inventory.result,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${base}Input` },
              example: d.example,
            },
          },
        },
        responses: {
          '200': {
            description: 'Success envelope.',
            content: {
              'application/json': { schema: successEnvelope(`#/components/schemas/${base}Output`) },
            },
          },
          ...errors,
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: {
      title: 'agentteam Exec',
      version: '1',
      description:
        'Routes a runtime uses to call agentteam actions. Generated from the descriptor catalog by scripts/generate.ts; do not edit.',
    },
    servers: [
      {
        url: '{daemon}/api/internal/exec/servers/{serverId}/agents/{agentId}',
        description:
          'The value of AGENTTEAM_EXEC_BASE_URL inside a runtime started by `agentteam run`.',
        variables: {
          daemon: {
            default: 'http://127.0.0.1:4000',
            description: 'The daemon url from $AGENTTEAM_HOME/daemon.json.',
          },
          serverId: { default: 's1' },
          agentId: { default: 'a1' },
        },
      },
    ],
    security: [{ runtimeToken: [] }],
    tags: [
      { name: 'catalog' },
      ...Object.entries(catalog.domains).map(([name, description]) => ({ name, description })),
    ],
    paths,
    components: {
      securitySchemes: {
        runtimeToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The runtime token read from the file named by AGENTTEAM_EXEC_TOKEN_FILE.',
        },
      },
      schemas,
    },
  };
}
