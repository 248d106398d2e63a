import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { spawnServe, type StdioApp } from '../../devkit/serve-stdio.js';

/**
 * The stdio limits table, one row each at the limit and one past it, and the
 * base protocol bounds. A refused initialize leaves the child uninitialized,
 * so each row runs in one child: past the limit (invalid_params), the same
 * id again (duplicate_id: a corrected retry needs a fresh id), then at the
 * limit with a fresh id (admitted).
 */

const tool = (i: number, extra: Record<string, unknown> = {}) => ({
  name: `client__t${i}`,
  description: 'A tool.',
  input_schema: { type: 'object' },
  ...extra,
});
const effectiveBytes = (tools: any[]) =>
  Buffer.byteLength(
    JSON.stringify(
      tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.input_schema,
        timeout_ms: t.timeout_ms ?? 30000,
      })),
    ),
  );

/** A registry whose effective form is exactly `bytes` long. */
function registryOf(bytes: number): any[] {
  const tools = Array.from({ length: 17 }, (_, i) => tool(i, { description: 'd'.repeat(1900) }));
  const last = tools[16]!;
  last.description = 'd'.repeat(1900 - (effectiveBytes(tools) - bytes));
  assert.equal(effectiveBytes(tools), bytes);
  return tools;
}

function nested(containers: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 2; i < containers; i++) s = { not: s };
  return { type: 'object', not: s };
}

let n = 0;
async function row(
  d: Daemon,
  t: any,
  name: string,
  past: unknown[],
  at: unknown[],
  pastMessage: RegExp,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await t.test(name, async () => {
    const app = spawnServe(d);
    try {
      const id = `past-${++n}`;
      const refused = await app.request(
        'initialize',
        { required_capabilities: ['client.tools'], client_tools: past, ...extra },
        id,
      );
      assert.equal(refused.error?.data?.code, 'invalid_params', JSON.stringify(refused));
      assert.match(refused.error.message, pastMessage);
      app.send({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { required_capabilities: ['client.tools'], client_tools: at },
      });
      const dup = await app.next((f) => f.id === id && f !== refused);
      assert.equal(dup.error?.data?.code, 'duplicate_id');
      const ok = await app.request('initialize', {
        required_capabilities: ['client.tools'],
        client_tools: at,
        ...extra,
      });
      assert.ok(ok.result, JSON.stringify(ok).slice(0, 400));
      assert.equal(ok.result.client_tools.tools.length, at.length);
    } finally {
      await app.close();
    }
  });
}

test('serve --stdio limits table: each row at the limit and one past it', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  await row(
    d,
    t,
    'tools: 32 descriptors, not 33',
    Array.from({ length: 33 }, (_, i) => tool(i)),
    Array.from({ length: 32 }, (_, i) => tool(i)),
    /33 descriptors; at most 32/,
  );
  await row(
    d,
    t,
    'name_bytes: client__ plus 56 characters (64 bytes), not 57',
    [tool(0, { name: `client__${'n'.repeat(57)}` })],
    [tool(0, { name: `client__${'n'.repeat(56)}` })],
    /name must be "client__"/,
  );
  await row(
    d,
    t,
    'name rules: the client__ prefix, ASCII letters, digits, underscores, case-sensitive',
    [tool(0, { name: 'client__a-b' })],
    [tool(0, { name: 'client__A' }), tool(1, { name: 'client__a' })],
    /name must be/,
  );
  await row(d, t, 'names are unique', [tool(0), tool(0)], [tool(0)], /registered twice/);
  await row(
    d,
    t,
    'description_bytes: 2048 UTF-8 bytes, not 2049',
    [tool(0, { description: `${'é'.repeat(1024)}x` })],
    [tool(0, { description: 'é'.repeat(1024) })],
    /2049 UTF-8 bytes; at most 2048/,
  );
  await row(
    d,
    t,
    'description: nonblank, no control characters but LF and tab',
    [tool(0, { description: 'bell\u0007' })],
    [tool(0, { description: 'line\nnext\ttab' })],
    /control character/,
  );
  await row(
    d,
    t,
    'description: blank is refused',
    [tool(0, { description: ' \n\t' })],
    [tool(0)],
    /non-blank/,
  );
  await row(
    d,
    t,
    'registry_bytes: 32768 compact bytes of the effective registry (defaulted timeouts included), not 32769',
    registryOf(32_769),
    registryOf(32_768),
    /32769 compact bytes .*at most 32768/,
  );
  const schemaOf = (bytes: number) => ({ type: 'object', description: 'x'.repeat(bytes - 34) });
  assert.equal(Buffer.byteLength(JSON.stringify(schemaOf(8192))), 8192);
  await row(
    d,
    t,
    'schema_bytes: 8192 compact bytes, not 8193',
    [tool(0, { input_schema: schemaOf(8193) })],
    [tool(0, { input_schema: schemaOf(8192) })],
    /8193 compact bytes; at most 8192/,
  );
  await row(
    d,
    t,
    'schema_depth: 16 containers (root = 1), not 17',
    [tool(0, { input_schema: nested(17) })],
    [tool(0, { input_schema: nested(16) })],
    /17 containers; at most 16|deeper than 16/,
  );
  await row(
    d,
    t,
    'min_timeout_ms: 1000, not 999',
    [tool(0, { timeout_ms: 999 })],
    [tool(0, { timeout_ms: 1000 })],
    /timeout_ms must be an integer from 1000 to 300000/,
  );
  await row(
    d,
    t,
    'max_timeout_ms: 300000, not 300001',
    [tool(0, { timeout_ms: 300_001 })],
    [tool(0, { timeout_ms: 300_000 })],
    /timeout_ms/,
  );
  await row(
    d,
    t,
    'timeout_ms is an integer',
    [tool(0, { timeout_ms: 1000.5 })],
    [tool(0, { timeout_ms: 1001 })],
    /timeout_ms/,
  );
  await row(
    d,
    t,
    'descriptors accept exactly name, description, input_schema, timeout_ms',
    [tool(0, { title: 'x' })],
    [tool(0, { timeout_ms: 5000 })],
    /unknown field "title"/,
  );
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

test('serve --stdio initialize: client_tools null invalid, [] valid; required_capabilities 16 / 18 entries', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const app = spawnServe(d);
  t.after(() => app.close());
  const caps = (k: number, withTools: boolean) => [
    ...(withTools ? ['client.tools'] : []),
    ...Array.from({ length: k - (withTools ? 1 : 0) }, (_, i) => `cap.${i}`),
  ];
  const r17 = await app.request('initialize', { required_capabilities: caps(17, false) });
  assert.match(r17.error.message, /17 entries; at most 16$/);
  const r16 = await app.request('initialize', { required_capabilities: caps(16, false) });
  assert.match(
    r16.error.message,
    /does not provide the required capability "cap.0"/,
    '16 entries pass the count; the capabilities themselves are unknown',
  );
  const r19 = await app.request('initialize', {
    required_capabilities: caps(19, true),
    client_tools: [],
  });
  assert.match(r19.error.message, /19 entries; at most 18 with client.tools/);
  const r18 = await app.request('initialize', {
    required_capabilities: caps(18, true),
    client_tools: [],
  });
  assert.match(r18.error.message, /does not provide the required capability "cap.0"/);
  for (const r of [r17, r16, r19, r18]) assert.equal(r.error.data.code, 'invalid_params');
  const missing = await app.request('initialize', { required_capabilities: ['client.tools'] });
  assert.match(missing.error.message, /client_tools is required/);
  const nul = await app.request('initialize', {
    required_capabilities: ['client.tools'],
    client_tools: null,
  });
  assert.match(nul.error.message, /not null/);
  app.send(
    '{"jsonrpc":"2.0","id":"dupkey","method":"initialize","params":{"required_capabilities":["client.tools"],"client_tools":[{"name":"client__a","name":"client__b","description":"d","input_schema":{"type":"object"}}]}}',
  );
  const dupKey = await app.next((f) => f.id === 'dupkey');
  assert.equal(dupKey.error.data.code, 'invalid_params', 'a duplicate descriptor field fails');
  const empty = await app.request('initialize', {
    required_capabilities: ['client.tools'],
    client_tools: [],
  });
  assert.deepEqual(empty.result.client_tools.tools, []);
  assert.deepEqual(empty.result.capabilities, ['client.tools']);
});

test('serve --stdio base bounds: input frames of 65536 and 65537 bytes, JSON depth 32 and 33, request id 4097', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());

  await t.test('depth 32 is read, 33 is invalid_request', async () => {
    const app = spawnServe(d);
    try {
      const deep = (depth: number) =>
        `{"jsonrpc":"2.0","id":"d${depth}","method":"x.deep","params":{"a":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;
      app.send(deep(32));
      assert.equal(
        (await app.next((f) => f.id === 'd32')).error.data.code,
        'unsupported_method',
        'read and dispatched',
      );
      app.send(deep(33));
      const refused = await app.next((f) => f.id === null);
      assert.equal(refused.error.data.code, 'invalid_request');
      assert.match(refused.error.message, /deeper than 32/);
    } finally {
      await app.close();
    }
  });

  await t.test(
    'a frame of 65536 bytes (LF excluded) is read; 65537 closes the connection',
    async () => {
      const app: StdioApp = spawnServe(d);
      const frame = (bytes: number, id: string) => {
        const head = `{"jsonrpc":"2.0","id":"${id}","method":"x.pad","params":{"p":"`;
        const tail = '"}}';
        return head + 'p'.repeat(bytes - head.length - tail.length) + tail;
      };
      assert.equal(Buffer.byteLength(frame(65_536, 'f1')), 65_536);
      app.send(frame(65_536, 'f1'));
      assert.equal((await app.next((f) => f.id === 'f1')).error.data.code, 'unsupported_method');
      app.send(frame(65_537, 'f2'));
      const closing = await app.next((f) => f.id === null);
      assert.equal(closing.error.data.code, 'body_too_large');
      assert.equal(await app.exited, 1);
    },
  );

  await t.test(
    'an app that stops reading stdout: past 512 KiB queued the child gives up and ends',
    async () => {
      const app = spawnServe(d);
      app.child.stdout!.pause();
      // Every answer echoes its 40 KB id: 20 of them are 800 KB the app never reads.
      for (let i = 0; i < 20; i++)
        app.send({ jsonrpc: '2.0', id: `${i}-${'i'.repeat(40_000)}`, method: 'x.unread' });
      const t0 = Date.now();
      const kill = setTimeout(() => app.child.kill('SIGKILL'), 10_000);
      assert.equal(await app.exited, 1);
      clearTimeout(kill);
      assert.ok(Date.now() - t0 < 9000, 'ended on its own, within the 2 s flush bound');
      assert.match(app.stderr(), /does not read stdout/);
    },
  );

  await t.test('4096 lifetime request ids; the 4097th is refused', async () => {
    const app = spawnServe(d);
    try {
      const lines = Array.from({ length: 4097 }, (_, i) =>
        JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'x.count' }),
      ).join('\n');
      app.child.stdin!.write(`${lines}\n`);
      const last = await app.next((f) => f.id === 4097, 20_000);
      assert.equal(last.error.data.code, 'request_ids_exhausted');
      assert.equal(
        app.frames.filter((f) => f.error?.data?.code === 'unsupported_method').length,
        4096,
      );
    } finally {
      await app.close();
    }
  });
});
