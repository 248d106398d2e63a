import type { SchemaObject } from '../../catalog/descriptor.js';
import { errorEnvelopeSchema } from '../../catalog/envelope.js';
import type { OperatorRoute } from '../../catalog/operator/route.js';
import { OPERATOR_API } from '../../catalog/operator/table.js';
import { JSON_SCHEMA_DIALECT } from '../../catalog/schemas.js';
import { errorResponses, pascal, successEnvelope } from './openapi.js';

const STREAM_TYPES = { ndjson: 'application/x-ndjson', sse: 'text/event-stream' } as const;

/** OpenAPI's `in: path|query` parameters of a row's params or query schema. */
function parameters(where: 'path' | 'query', schema: unknown): unknown[] {
  const s = schema as { properties?: Record<string, unknown>; required?: readonly string[] };
  return Object.entries(s?.properties ?? {}).map(([name, p]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    schema: p,
  }));
}

/** The success answer of a row: an envelope, or a stream whose first line and events are described. */
function success(r: OperatorRoute, ref: string): Record<string, unknown> {
  const status = String(r.status ?? 200);
  if (!r.stream)
    return {
      [status]: {
        description: 'Success envelope.',
        content: { 'application/json': { schema: successEnvelope(ref) } },
      },
    };
  const envelope = r.stream.kind === 'ndjson' && r.stream.envelope !== false;
  return {
    [status]: {
      description: envelope
        ? 'NDJSON stream: the first line is the success envelope, each later line an event (x-agentteam-event).'
        : r.stream.kind === 'ndjson'
          ? 'NDJSON stream without an envelope: every line is an event (x-agentteam-event).'
          : 'Server-sent events; each event data is described by x-agentteam-event.',
      content: {
        [STREAM_TYPES[r.stream.kind]]: {
          ...(envelope ? { schema: successEnvelope(ref) } : {}),
          'x-agentteam-event': r.stream.event,
        },
      },
    },
  };
}

/** OpenAPI 3.1 description of the operator API (`/api/v1`), built from catalog/operator/. */
export function operatorOpenApiDocument(): SchemaObject {
  const { $schema: _s, $id: _i, ...errorEnvelope } = errorEnvelopeSchema;
  const schemas: Record<string, unknown> = { ErrorEnvelope: errorEnvelope };
  const errors = errorResponses();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of OPERATOR_API as readonly OperatorRoute[]) {
    const base = pascal(r.name);
    schemas[`${base}Output`] = r.output;
    if (r.body) schemas[`${base}Body`] = r.body;
    const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      operationId: r.name,
      summary: r.summary,
      tags: [r.name.split('.')[0]],
      'x-agentteam-permission': r.permission,
      ...(r.decoder ? { 'x-agentteam-decoder': r.decoder } : {}),
      ...(r.params || r.query
        ? { parameters: [...parameters('path', r.params), ...parameters('query', r.query)] }
        : {}),
      ...(r.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: { $ref: `#/components/schemas/${base}Body` } },
              },
            },
          }
        : {}),
      responses: { ...success(r, `#/components/schemas/${base}Output`), ...errors },
    };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: {
      title: 'agentteam operator API',
      version: '1',
      description:
        'The routes the CLI, the console and apps use under /api/v1. Generated from catalog/operator/ by scripts/generate.ts; do not edit.',
    },
    servers: [
      {
        url: '{daemon}',
        variables: {
          daemon: {
            default: 'http://127.0.0.1:4000',
            description: 'The daemon url from $AGENTTEAM_HOME/daemon.json.',
          },
        },
      },
    ],
    security: [{ operatorToken: [] }],
    paths,
    components: {
      securitySchemes: {
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator token from $AGENTTEAM_HOME/operator.token.',
        },
      },
      schemas,
    },
  };
}
