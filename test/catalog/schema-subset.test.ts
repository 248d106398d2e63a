import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  CLIENT_TOOL_SUBSET,
  STDIO_TOOL_SUBSET,
  checkSchemaSubset,
  formatSubsetProblem,
  type SchemaSubset,
} from '../../catalog/schema-subset.js';

const check = (s: unknown, subset: SchemaSubset = CLIENT_TOOL_SUBSET) => {
  const p = checkSchemaSubset(s, subset, { requireObjectRoot: true });
  return p === null ? null : formatSubsetProblem(p);
};

test('schema subset: the seed example message, with the JSON path', () => {
  assert.equal(
    check({ type: 'object', properties: { ref: { type: 'bogus' } } }),
    'at $.properties.ref.type: unknown type "bogus"',
  );
});

test('schema subset: every listed keyword is accepted with a right value', () => {
  const full = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $comment: 'c',
    title: 't',
    description: 'd',
    type: 'object',
    required: ['a'],
    additionalProperties: false,
    minProperties: 0,
    maxProperties: 3,
    deprecated: false,
    readOnly: false,
    writeOnly: false,
    default: {},
    examples: [{ a: 'x' }],
    properties: {
      a: {
        type: 'string',
        minLength: 1,
        maxLength: 9,
        pattern: '^x',
        format: 'uri',
        enum: ['x', 'y'],
        const: 'x',
      },
      n: {
        type: ['number', 'null'],
        minimum: 0,
        maximum: 5,
        exclusiveMinimum: -1,
        exclusiveMaximum: 6,
        multipleOf: 0.5,
      },
      l: { type: 'array', items: { type: 'integer' }, minItems: 0, maxItems: 4, uniqueItems: true },
      u: {
        anyOf: [{ type: 'string' }, { type: 'boolean' }],
        oneOf: [{ type: 'string' }],
        allOf: [{}],
      },
      m: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };
  assert.equal(check(full), null);
});

test('schema subset: each unknown keyword is refused with its path', () => {
  for (const kw of [
    '$ref',
    'patternProperties',
    '$defs',
    'definitions',
    'not',
    'contains',
    'prefixItems',
    'if',
    'then',
    'else',
    'dependentRequired',
    'unevaluatedProperties',
    '$id',
    'bogus',
  ]) {
    assert.equal(
      check({ type: 'object', properties: { x: { [kw]: {} } } }),
      `at $.properties.x.${kw}: unknown keyword "${kw}"`,
      kw,
    );
  }
  assert.equal(
    check({ type: 'object', properties: { 'a b': { $ref: '#' } } }),
    'at $.properties["a b"].$ref: unknown keyword "$ref"',
  );
});

test('schema subset: wrong value types are refused with the path', () => {
  const cases: [unknown, string][] = [
    [
      { type: 'object', properties: [] },
      'at $.properties: must be an object of schemas, not an array',
    ],
    [{ type: 'object', required: 'a' }, 'at $.required: must be an array of strings, not a string'],
    [{ type: 'object', required: ['a', 1] }, 'at $.required[1]: must be a string, not a number'],
    [{ type: 'object', required: ['a', 'a'] }, 'at $.required[1]: "a" is listed twice'],
    [
      { type: 'object', additionalProperties: 'no' },
      'at $.additionalProperties: a schema must be an object, not a string',
    ],
    [
      { type: 'object', properties: { l: { items: [{}] } } },
      'at $.properties.l.items: must be one schema (tuple form is not supported)',
    ],
    [{ type: 'object', anyOf: [] }, 'at $.anyOf: must be a non-empty array of schemas'],
    [{ type: 'object', oneOf: {} }, 'at $.oneOf: must be a non-empty array of schemas'],
    [{ type: 'object', allOf: [1] }, 'at $.allOf[0]: a schema must be an object, not a number'],
    [{ type: 'object', enum: [] }, 'at $.enum: must be a non-empty array'],
    [{ type: 'object', examples: 'x' }, 'at $.examples: must be an array, not a string'],
    [{ type: 'object', description: 3 }, 'at $.description: must be a string, not a number'],
    [{ type: 'object', title: null }, 'at $.title: must be a string, not null'],
    [{ type: 'object', $schema: 1 }, 'at $.$schema: must be a string, not a number'],
    [
      { type: 'object', properties: { s: { pattern: 1 } } },
      'at $.properties.s.pattern: must be a string, not a number',
    ],
    [
      { type: 'object', properties: { s: { format: true } } },
      'at $.properties.s.format: must be a string, not a boolean',
    ],
    [
      { type: 'object', properties: { n: { minimum: '1' } } },
      'at $.properties.n.minimum: must be a number, not a string',
    ],
    [
      { type: 'object', properties: { n: { multipleOf: 0 } } },
      'at $.properties.n.multipleOf: must be a number greater than 0',
    ],
    [
      { type: 'object', properties: { s: { minLength: -1 } } },
      'at $.properties.s.minLength: must be a non-negative integer',
    ],
    [
      { type: 'object', properties: { s: { maxItems: 1.5 } } },
      'at $.properties.s.maxItems: must be a non-negative integer',
    ],
    [
      { type: 'object', properties: { s: { uniqueItems: 'yes' } } },
      'at $.properties.s.uniqueItems: must be true or false, not a string',
    ],
    [{ type: 'object', deprecated: 1 }, 'at $.deprecated: must be true or false, not a number'],
    [
      { type: 'object', properties: { t: { type: ['string', 'bogus'] } } },
      'at $.properties.t.type[1]: unknown type "bogus"',
    ],
    [
      { type: 'object', properties: { t: { type: [] } } },
      'at $.properties.t.type: type list must not be empty',
    ],
    [
      { type: 'object', properties: { t: { type: ['string', 'string'] } } },
      'at $.properties.t.type[1]: type "string" is listed twice',
    ],
    [
      { type: 'object', properties: { t: { type: 5 } } },
      'at $.properties.t.type: type must be a string or a list of strings, not a number',
    ],
    [{ type: 'object', properties: { b: true } }, 'at $.properties.b: a schema must be an object'],
    [{ type: 'string' }, 'at $.type: the root schema must have "type": "object"'],
    [{}, 'at $.type: the root schema must have "type": "object"'],
    [[], 'at $: a schema must be an object, not an array'],
  ];
  for (const [schema, msg] of cases) assert.equal(check(schema), msg, JSON.stringify(schema));
});

function nested(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'object' };
  for (let i = 1; i < levels; i++) s = { type: 'object', properties: { p: s } };
  return s;
}

test('schema subset: 16 levels pass, 17 fail; 512 schemas pass, 513 fail', () => {
  assert.equal(check(nested(16)), null);
  assert.match(
    check(nested(17)) ?? '',
    /^at \$(\.properties\.p){16}: nested deeper than 16 levels$/,
  );
  const props = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }]));
  assert.equal(check({ type: 'object', properties: props(511) }), null);
  assert.equal(
    check({ type: 'object', properties: props(512) }),
    'at $.properties.p511: more than 512 schemas',
  );
});

test('schema subset: enum, const, default and examples stay data (never checked as schemas)', () => {
  assert.equal(
    check({
      type: 'object',
      default: { $ref: 1 },
      const: { bogus: [] },
      enum: [{ $ref: '#' }],
      examples: [{ type: 'bogus' }],
    }),
    null,
  );
});

test('schema subset: stdio list is parameterized (booleans, $defs, no $schema)', () => {
  assert.equal(
    check(
      { type: 'object', properties: { b: true }, $defs: { x: { not: { type: 'null' } } } },
      STDIO_TOOL_SUBSET,
    ),
    null,
  );
  assert.equal(
    check({ type: 'object', $schema: 'x' }, STDIO_TOOL_SUBSET),
    'at $.$schema: unknown keyword "$schema"',
  );
  assert.equal(check(true, STDIO_TOOL_SUBSET), 'at $: a schema must be an object');
});

test('schema subset property: any JSON value either passes or yields a path under $ and a message', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
      const p = checkSchemaSubset({ type: 'object', properties: { x: v } }, CLIENT_TOOL_SUBSET);
      if (p !== null) {
        assert.ok(p.path.startsWith('$.properties.x'), p.path);
        assert.ok(p.message.length > 0);
      }
    }),
    { numRuns: 300 },
  );
});
