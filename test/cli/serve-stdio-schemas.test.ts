import { test } from 'node:test';
import { startDaemon } from '../../devkit/daemon.js';
import { limitRow as row, stdioTool as tool } from '../../devkit/serve-stdio.js';

/**
 * The input schemas a stdio child may register, one row each refused and
 * admitted: an explicit object root, the closed keyword list with each
 * value type checked, no `$schema`, no references, no unknown keyword.
 */

test('serve --stdio schema rules: each refused and its correction admitted', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  await row(
    d,
    t,
    'the schema root must say "type": "object"',
    [tool(0, { input_schema: { properties: {} } })],
    [tool(0, { input_schema: { type: 'object', properties: {} } })],
    /"type": "object"/,
  );
  await row(
    d,
    t,
    'no $schema',
    [
      tool(0, {
        input_schema: { type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' },
      }),
    ],
    [tool(0)],
    /unknown keyword "\$schema"/,
  );
  await row(
    d,
    t,
    'no $ref',
    [
      tool(0, {
        input_schema: {
          type: 'object',
          properties: { a: { $ref: '#/$defs/a' } },
          $defs: { a: { type: 'string' } },
        },
      }),
    ],
    [
      tool(0, {
        input_schema: { type: 'object', properties: { a: true }, $defs: { a: { type: 'string' } } },
      }),
    ],
    /unknown keyword "\$ref"/,
  );
  const every = {
    type: 'object',
    title: 't',
    description: 'd',
    $comment: 'c',
    required: ['a'],
    minProperties: 0,
    maxProperties: 9,
    properties: {
      a: {
        type: ['string', 'null'],
        minLength: 0,
        maxLength: 4,
        pattern: '^a',
        format: 'x',
        enum: ['a', null],
        const: 'a',
        default: 'a',
        examples: ['a'],
        readOnly: true,
        writeOnly: false,
        deprecated: false,
      },
    },
    patternProperties: {
      '^x': {
        type: 'number',
        minimum: 0,
        maximum: 9,
        exclusiveMinimum: -1,
        exclusiveMaximum: 10,
        multipleOf: 0.5,
      },
    },
    additionalProperties: false,
    propertyNames: { maxLength: 8 },
    $defs: {
      d: {
        type: 'array',
        items: true,
        prefixItems: [{ type: 'string' }],
        contains: { type: 'string' },
        minContains: 1,
        maxContains: 2,
        minItems: 0,
        maxItems: 3,
        uniqueItems: true,
      },
    },
    definitions: { e: { anyOf: [{ type: 'string' }], oneOf: [true], allOf: [{}], not: false } },
  };
  await row(
    d,
    t,
    'every keyword of the closed list, with its value type checked',
    [tool(0, { input_schema: { ...every, minProperties: -1 } })],
    [tool(0, { input_schema: every })],
    /minProperties: must be a non-negative integer/,
  );
  await row(
    d,
    t,
    'multipleOf must be positive',
    [tool(0, { input_schema: { type: 'object', multipleOf: 0 } })],
    [tool(0, { input_schema: { type: 'object', multipleOf: 2 } })],
    /multipleOf/,
  );
  await row(
    d,
    t,
    'unknown keywords fail rather than being ignored',
    [tool(0, { input_schema: { type: 'object', if: {} } })],
    [tool(0)],
    /unknown keyword "if"/,
  );
});
