import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { JSON_BYTES_KEYWORD, jsonBytes } from '../../catalog/limits.js';
import { rpc } from '../../devkit/http.js';
import { openLease } from '../../devkit/lease.js';
import { startDaemon } from '../../devkit/daemon.js';

/**
 * tools/list serves each built-in tool's input schema without the catalog's
 * own keywords (x-maxJsonBytes); the daemon still validates against the
 * whole schema. This file checks that nothing else was dropped, and that
 * no byte limit the wire leaves out can refuse a string the wire admits:
 * its maxLength (or its pattern) already keeps every admitted string within
 * the limit. Only unpaired surrogates, which the wire cannot state, are
 * refused beyond it (test/catalog/schemas-published-mcp.test.ts sends the strings).
 */

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  pattern?: string;
  maxLength?: number;
};

/** Every leaf of a JSON value as `pointer = value`. */
function leaves(v: unknown, path = ''): string[] {
  if (v === null || typeof v !== 'object') return [`${path} = ${JSON.stringify(v)}`];
  const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
  if (entries.length === 0) return [`${path} = ${Array.isArray(v) ? '[]' : '{}'}`];
  return entries.flatMap(([k, x]) => leaves(x, `${path}/${k}`));
}

/** A string of exactly `bytes` JSON bytes and at most `maxChars` code points (4-byte emoji, a 6-byte escaped control character where needed, one 1-3 byte filler). */
function ofBytes(bytes: number, maxChars: number): string | null {
  for (let controls = 0; controls * 6 <= bytes; controls++) {
    const rest = bytes - controls * 6;
    const tail = ['', 'a', 'é', '€'][rest % 4]!;
    if (controls + Math.floor(rest / 4) + (tail ? 1 : 0) <= maxChars)
      return '\u0001'.repeat(controls) + '😀'.repeat(Math.floor(rest / 4)) + tail;
  }
  return null;
}

/** Valid arguments for each tool besides the field under test. */
const BASE: Record<string, Record<string, unknown>> = {
  message_send: { target: 'dm:someone', content: 'hello' },
  message_history_read: { target: 'dm:someone' },
  message_react: { messageId: 'msg_abcdef', emoji: '👍' },
  memory_search: { query: 'notes' },
  kb_search: { query: 'notes' },
  kb_fetch: { docId: 'guide.md' },
};

interface Envelope {
  code: string;
  details?: { path: string; message: string }[];
}

test('the wire input schemas keep every constraint but the internal keywords, and the daemon still enforces those', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const lease = await openLease(d, { serverId: 'local', agentId: 'w1', runtime: 'generic' });
  t.after(() => lease.close());
  const listed = await rpc(lease.mcpUrl, lease.token(), {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
  });
  assert.equal(listed.status, 200, listed.body);
  const wire = new Map(
    (
      JSON.parse(listed.body) as { result: { tools: { name: string; inputSchema: Schema }[] } }
    ).result.tools.map((x) => [x.name, x.inputSchema]),
  );
  assert.deepEqual(
    [...wire.keys()],
    MCP_TOOLS.map((x) => x.name),
  );

  let id = 1;
  const call = async (name: string, args: Record<string, unknown>): Promise<Envelope | null> => {
    const res = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    assert.equal(res.status, 200, res.body);
    const result = (
      JSON.parse(res.body) as { result: { isError: boolean; content: { text: string }[] } }
    ).result;
    return result.isError
      ? (JSON.parse(result.content[0]!.text) as { error: Envelope }).error
      : null;
  };
  const byteDetail = (e: Envelope | null, field: string) =>
    e?.details?.find((x) => x.path === `/${field}` && /bytes as JSON|well-formed/.test(x.message));

  await t.test('each wire schema is the catalog schema less exactly its x- keywords', () => {
    for (const tool of MCP_TOOLS) {
      const full = leaves(tool.inputSchema).filter((l) => !/\/x-[^/]*( =|\/)/.test(l));
      assert.deepEqual(leaves(wire.get(tool.name)), full, tool.name);
      assert.ok(
        leaves(tool.inputSchema).length > full.length ||
          !JSON.stringify(tool.inputSchema).includes('"x-'),
        tool.name,
      );
    }
  });

  // A validator of the wire alone: what a client could check before sending.
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const tool of MCP_TOOLS) {
    for (const [field, full] of Object.entries((tool.inputSchema as Schema).properties ?? {})) {
      const limit = full[JSON_BYTES_KEYWORD] as number | undefined;
      if (limit === undefined) continue;
      const wireField = wire.get(tool.name)!.properties![field]!;
      const wireOk = ajv.compile(wireField);
      const maxChars = (wireField.maxLength as number | undefined) ?? limit;
      const over = ofBytes(limit + 1, maxChars);
      await t.test(
        `${tool.name}.${field}: a lone surrogate is refused; the daemon's byte limit ${limit} refuses nothing the wire admits`,
        async () => {
          // What the wire cannot state: a string the store could not keep byte for byte.
          const lone = await call(tool.name, { ...BASE[tool.name], [field]: 'a\ud800b' });
          assert.equal(lone?.code, 'validation_failed');
          assert.ok(byteDetail(lone, field), JSON.stringify(lone));
          if (over !== null)
            assert.ok(
              !wireOk(over),
              `the wire admits ${limit + 1} bytes in ${[...over].length} code points`,
            );
        },
      );
      if (typeof wireField.pattern !== 'string') {
        // Free text: maxLength code points at 6 bytes (a control character as JSON) fit the byte limit.
        await t.test(
          `${tool.name}.${field}: ${maxChars} code points of the costliest kind are within ${limit} bytes`,
          () => {
            assert.ok(
              maxChars * 6 <= limit,
              `${maxChars} code points may take ${maxChars * 6} bytes`,
            );
          },
        );
      } else {
        // The wire's own pattern and length keep every string it admits within the byte limit.
        await t.test(
          `${tool.name}.${field}: every string the wire schema admits is within ${limit} bytes`,
          () => {
            assert.ok(
              typeof wireField.pattern === 'string',
              `${field} has neither a byte limit on the wire nor a pattern that implies it`,
            );
            const re = new RegExp(wireField.pattern, 'u');
            // Short and long matches (the long ones reach the length limit; 'max' is unbounded for a `+`).
            const matching = fc.oneof(
              fc.stringMatching(re),
              fc.stringMatching(re, { size: 'large' }),
            );
            let admitted = 0;
            fc.assert(
              fc.property(matching, (s) => {
                if (!wireOk(s)) return true;
                admitted++;
                return jsonBytes(s) <= limit;
              }),
              { numRuns: 500 },
            );
            assert.ok(admitted > 100, `only ${admitted} generated strings passed the wire schema`);
          },
        );
      }
    }
  }
});
