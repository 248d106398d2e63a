import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { wireTool } from '../../catalog/mcp-wire.js';
import { RUNTIME_KINDS } from '../../catalog/runtimes.js';
import { modelView } from '../../lib/token-model-view.js';

const definition = JSON.stringify({
  name: 'mcp__agentteam__pick',
  title: 'Pick one',
  description: 'Picks one.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['kind'],
    properties: {
      kind: { const: 'a', description: 'Always a.' },
      n: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
      tags: {
        type: 'array',
        maxItems: 3,
        items: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
      },
      at: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    },
  },
  outputSchema: { type: 'object', additionalProperties: false, properties: {} },
  annotations: { title: 'Pick one', readOnlyHint: true },
});

test('model view: Claude gets name, description and the input schema as it is; nothing else of the definition', () => {
  const v = JSON.parse(modelView('claude', definition)) as Record<string, unknown>;
  assert.deepEqual(Object.keys(v), ['name', 'description', 'input_schema']);
  assert.deepEqual(v.input_schema, JSON.parse(definition).inputSchema);
});

test("model view: Codex's schema subset drops bounds, patterns, defaults and formats, and turns const into an enum", () => {
  const v = JSON.parse(modelView('codex', definition)) as {
    type: string;
    strict: boolean;
    parameters: any;
  };
  assert.equal(v.type, 'function');
  assert.equal(v.strict, false);
  assert.deepEqual(v.parameters, {
    type: 'object',
    additionalProperties: false,
    required: ['kind'],
    properties: {
      kind: { enum: ['a'], description: 'Always a.' },
      n: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
      at: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
  });
});

test('model view: OpenCode closes the input object; every runtime leaves out title, annotations and the output schema', () => {
  const open = JSON.parse(
    modelView(
      'opencode',
      JSON.stringify({
        name: 'x',
        description: 'd',
        inputSchema: { type: 'object', properties: {} },
      }),
    ),
  );
  assert.equal(open.input_schema.additionalProperties, false);
  for (const runtime of RUNTIME_KINDS) {
    const text = modelView(runtime, definition);
    for (const left of ['outputSchema', 'annotations', 'Pick one'])
      assert.ok(!text.includes(left), `${runtime}: ${left}`);
  }
});

test('model view of the built-ins: no internal keyword for any runtime, and never larger than the wire', () => {
  for (const runtime of RUNTIME_KINDS) {
    for (const tool of MCP_TOOLS) {
      const wire = JSON.stringify(wireTool(tool));
      const view = modelView(runtime, wire);
      assert.ok(!view.includes('"x-'), `${runtime} ${tool.name}`);
      assert.ok(Buffer.byteLength(view) < Buffer.byteLength(wire), `${runtime} ${tool.name}`);
    }
  }
});
