import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startDaemon } from '../../devkit/daemon.js';
import { limitRow as row, stdioTool as tool } from '../../devkit/serve-stdio.js';

/**
 * The stdio limits table and the descriptor rules, one row each at the
 * limit and one past it (devkit's limitRow: past, the same id again, then
 * at the limit with a fresh id). The schema rules are
 * serve-stdio-schemas.test.ts, the base protocol bounds
 * serve-stdio-bounds.test.ts.
 */

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
});
