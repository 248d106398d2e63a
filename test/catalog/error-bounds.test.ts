import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { errorEnvelopeSchema, type ErrorBody } from '../../catalog/envelope.js';
import {
  DETAIL_TEXT_MAX_BYTES,
  ERROR_ENVELOPE_MAX_BYTES,
  MAX_DETAILS,
  boundErrorBody,
  cutJsonText,
  fitErrorBody,
} from '../../catalog/error-limits.js';
import { call, closeHttp, post, rpc } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { cleanEnv, runCli } from '../../devkit/cli.js';

test.after(() => closeHttp());

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const validEnvelope = new Ajv2020({ strict: false }).compile(errorEnvelopeSchema);

/** A body with `n` unknown fields (plus a valid title): 40 000 of them made a 2 MB error before. */
function flood(n: number, extra: Record<string, unknown> = {}): string {
  const o: Record<string, unknown> = { ...extra };
  for (let i = 0; i < n; i++) o[`u${i}`] = i;
  return JSON.stringify(o);
}

test('cutJsonText: fits its byte budget serialized, keeps surrogate pairs whole, leaves short text alone', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary', maxLength: 600 }),
      fc.integer({ min: 8, max: 400 }),
      (s, max) => {
        const cut = cutJsonText(s, max);
        if (cut === s) return bytes(JSON.stringify(s)) - 2 <= max || s.length * 6 <= max;
        assert.ok(bytes(JSON.stringify(cut)) - 2 <= max, `${bytes(JSON.stringify(cut))} > ${max}`);
        assert.ok(cut.endsWith('\u2026'));
        assert.ok(s.startsWith(cut.slice(0, -1)));
        const last = cut.charCodeAt(cut.length - 2);
        // A cut never ends in the first half of a pair that was whole in the input.
        if (last >= 0xd800 && last <= 0xdbff) {
          const next = s.charCodeAt(cut.length - 1);
          assert.ok(!(next >= 0xdc00 && next <= 0xdfff));
        }
        return true;
      },
    ),
    { numRuns: 2000 },
  );
});

test('boundErrorBody: any body ends within 8 KiB, valid against the envelope schema, every detail kept or counted', () => {
  const text = fc.string({ unit: 'binary', maxLength: 3000 });
  const detail = fc.record({ path: text, message: text });
  fc.assert(
    fc.property(
      text,
      fc.option(text),
      fc.array(detail, { maxLength: 60 }),
      fc.nat({ max: 1000 }),
      (message, hint, details, prior) => {
        const body: ErrorBody = { code: 'validation_failed', message, details };
        if (hint !== null) body.hint = hint;
        if (prior > 0) body.detailsOmitted = prior;
        const out = boundErrorBody(body);
        const wire = JSON.stringify({ ok: false, error: out });
        assert.ok(bytes(wire) <= ERROR_ENVELOPE_MAX_BYTES, `${bytes(wire)} bytes`);
        assert.ok(validEnvelope(JSON.parse(wire)), JSON.stringify(validEnvelope.errors));
        const kept = out.details?.length ?? 0;
        assert.ok(kept <= MAX_DETAILS);
        assert.equal(kept + (out.detailsOmitted ?? 0), details.length + prior);
        for (const d of out.details ?? [])
          assert.ok(bytes(JSON.stringify(d.message)) - 2 <= DETAIL_TEXT_MAX_BYTES);
        return true;
      },
    ),
    { numRuns: 500 },
  );
});

test('fitErrorBody: an envelope carried as escaped text (an MCP tool error) fits 8 KiB as a whole', () => {
  const heavy = fc.string({
    unit: fc.constantFrom('"', '\\', '\u0001', 'a', '\u00e9', '\ud83d\ude00'),
    maxLength: 3000,
  });
  const frameOf = (e: ErrorBody) =>
    JSON.stringify({
      content: [{ type: 'text', text: JSON.stringify({ ok: false, error: e }) }],
      isError: true,
    });
  fc.assert(
    fc.property(
      heavy,
      heavy,
      fc.array(fc.record({ path: heavy, message: heavy }), { maxLength: 40 }),
      fc.boolean(),
      (message, hint, details, withMeta) => {
        const body: ErrorBody = {
          code: 'result_budget_exceeded',
          message,
          hint,
          details,
          next: { action: 'task list', input: { limit: 5, q: hint.slice(0, 300) } },
        };
        if (withMeta)
          body.metadata = {
            mutation_applied: true,
            mutation_receipt: {
              entity: 'task',
              id: '"\\'.repeat(50),
              idempotencyKey: 'k'.repeat(128),
            },
          };
        const out = fitErrorBody(body, (e) => bytes(frameOf(e)));
        assert.ok(bytes(frameOf(out)) <= ERROR_ENVELOPE_MAX_BYTES, `${bytes(frameOf(out))} bytes`);
        assert.equal((out.details?.length ?? 0) + (out.detailsOmitted ?? 0), details.length);
        if (withMeta)
          assert.deepEqual(out.metadata, body.metadata, 'a receipt is never dropped to make room');
        return true;
      },
    ),
    { numRuns: 300 },
  );
});

test('40 000 unknown fields: under 8 KiB from the daemon (Exec), through MCP tools/call, and from the CLI', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());

  await t.test('Exec route', async () => {
    const r = await post(`${rt.base}/task/create`, rt.token(), flood(40_000, { title: 't' }));
    assert.equal(r.status, 400);
    assert.ok(bytes(r.text) < ERROR_ENVELOPE_MAX_BYTES, `${bytes(r.text)} bytes`);
    assert.equal(r.json.error.code, 'validation_failed');
    assert.equal(r.json.error.details.length, MAX_DETAILS);
    assert.equal(r.json.error.details[0].path, '/u0');
    assert.equal(r.json.error.details.length + r.json.error.detailsOmitted, 40_000);
    assert.ok(validEnvelope(r.json));
    // Nothing was created.
    const list = await call(rt, 'task', 'list', {});
    assert.deepEqual(list.json.data.tasks, []);
  });

  await t.test(
    'Exec route: long field names and messages are cut, the envelope stays valid',
    async () => {
      const long = '\u0001'.repeat(50_000);
      const r = await post(
        `${rt.base}/task/create`,
        rt.token(),
        JSON.stringify({ title: 't', [long]: 1, [`${long}x`]: 2 }),
      );
      assert.equal(r.status, 400);
      assert.ok(bytes(r.text) < ERROR_ENVELOPE_MAX_BYTES, `${bytes(r.text)} bytes`);
      assert.ok(validEnvelope(r.json));
      assert.ok(r.json.error.details[0].path.endsWith('\u2026'));
    },
  );

  await t.test('MCP tools/call', async () => {
    const args: Record<string, unknown> = { target: 'channel:general', content: 'hi' };
    for (let i = 0; i < 40_000; i++) args[`u${i}`] = i;
    const res = await rpc(rt.env.AGENTTEAM_MCP_URL!, rt.token(), {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'message_send', arguments: args },
    });
    assert.equal(res.status, 200);
    const frame = JSON.parse(res.body) as {
      result: { isError: boolean; content: { text: string }[] };
    };
    assert.equal(frame.result.isError, true);
    const text = frame.result.content[0]!.text;
    assert.ok(bytes(text) < ERROR_ENVELOPE_MAX_BYTES, `envelope ${bytes(text)} bytes`);
    assert.ok(bytes(res.body) < ERROR_ENVELOPE_MAX_BYTES, `frame ${bytes(res.body)} bytes`);
    const env = JSON.parse(text);
    assert.ok(validEnvelope(env));
    assert.equal(env.error.details.length + env.error.detailsOmitted, 40_000);
  });

  await t.test('MCP: a huge unknown tool or method name does not come back whole', async () => {
    const name = 'x'.repeat(200_000);
    const tool = await rpc(rt.env.AGENTTEAM_MCP_URL!, rt.token(), {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name, arguments: {} },
    });
    assert.ok(bytes(tool.body) < 2048, `${bytes(tool.body)} bytes`);
    const method = await rpc(rt.env.AGENTTEAM_MCP_URL!, rt.token(), {
      jsonrpc: '2.0',
      id: 3,
      method: name,
    });
    assert.ok(bytes(method.body) < 2048, `${bytes(method.body)} bytes`);
  });

  await t.test('CLI local validation (stdin), before any credential is read', async () => {
    const r = await runCli(['exec', 'task', 'create', '-'], {
      stdin: flood(40_000, { title: 't' }),
      env: cleanEnv(),
    });
    assert.equal(r.code, 2);
    assert.ok(bytes(r.stdout) < ERROR_ENVELOPE_MAX_BYTES, `${bytes(r.stdout)} bytes`);
    const env = JSON.parse(r.stdout);
    assert.ok(validEnvelope(env));
    assert.equal(env.error.details.length + env.error.detailsOmitted, 40_000);
  });

  await t.test('CLI through the daemon: what the daemon sends is bounded too', async () => {
    const r = await runCli(['exec', 'task', 'get', '{"id":"task_000000000000000000000"}'], {
      env: cleanEnv(rt.env),
    });
    assert.equal(r.code, 1);
    assert.ok(validEnvelope(JSON.parse(r.stdout)));
  });
});

test('the envelope schema lists exactly the receipt fields the receipt code may write', async () => {
  const { RECEIPT_SELECTORS, RECEIPT_IDEMPOTENCY } = await import('../../catalog/receipt.js');
  const receipt =
    errorEnvelopeSchema.properties.error.properties.metadata.properties.mutation_receipt;
  assert.deepEqual(
    Object.keys(receipt.properties).sort(),
    ['entity', 'retrieval', ...RECEIPT_SELECTORS, ...RECEIPT_IDEMPOTENCY].sort(),
  );
});
