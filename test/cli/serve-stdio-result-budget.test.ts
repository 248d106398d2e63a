import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import { STDIO_LIMITS } from '../../catalog/stdio-tools.js';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { connectAgent } from '../../devkit/client-tools.js';
import { lookupTool, spawnServe } from '../../devkit/serve-stdio.js';

/**
 * Over the stdio relay, a result within the seed's result_bytes can still
 * make a larger MCP result: structured JSON travels twice (structuredContent
 * and its text copy), and escaping and masking expand it. The agent's
 * tools/call result stays within 64 KiB: text is cut with a spill, the
 * structured object is never cut, and what cannot fit is refused to the app
 * with invalid_params while its call stays pending.
 */

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: unknown;
  isError?: boolean;
};

const SECRET = 'correct-horse-battery';
/** An 8-byte secret under a long name: masking makes each occurrence 7 times longer. */
const SHORT = 'k9Xq2mPz';
const LONG_NAME = 'AGENTTEAM_TEST_A_RATHER_LONG_NAME_FOR_A_SHORT_SECRET_TOKEN';
const frameBytes = (r: unknown) => Buffer.byteLength(JSON.stringify(r), 'utf8');
const spillOf = (text: string) => /the whole output is in (\S+) \.\.\.\]/.exec(text)?.[1];

test('serve --stdio: results reach the agent within the 64 KiB budget, and nothing is silently lost', async (t) => {
  const d: Daemon = await startDaemon({ env: { VENDOR_TOKEN: SECRET, [LONG_NAME]: SHORT } });
  t.after(() => d.close());
  const app = spawnServe(d);
  t.after(() => app.close());
  assert.ok((await app.init([lookupTool()])).result);
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  const call = async () => {
    const pending = agent.client.callTool({
      name: 'client__lookup_record',
      arguments: { record_id: 'x' },
    }) as Promise<Result>;
    return { pending, frame: await app.nextCall() };
  };

  await t.test(
    'structured JSON of exactly result_bytes: structuredContent whole, its text copy cut and spilled',
    async () => {
      const pad = 'v'.repeat(
        STDIO_LIMITS.result_bytes - Buffer.byteLength(JSON.stringify({ k: '' })),
      );
      const structured = { k: pad };
      assert.equal(Buffer.byteLength(JSON.stringify(structured)), STDIO_LIMITS.result_bytes);
      const { pending, frame } = await call();
      assert.deepEqual((await app.answer(frame, { text: '', structured })).result, {
        accepted: true,
      });
      const r = await pending;
      assert.ok(frameBytes(r) <= RESULT_BUDGET_BYTES, `${frameBytes(r)} bytes`);
      assert.deepEqual(r.structuredContent, structured, 'never cut');
      assert.equal(r.content[0]!.text, '');
      assert.equal(readFileSync(spillOf(r.content[1]!.text)!, 'utf8'), JSON.stringify(structured));
    },
  );

  await t.test(
    "one byte more is the seed's invalid_params, and the call stays pending",
    async () => {
      const { pending, frame } = await call();
      const over = await app.answer(frame, { text: 'x'.repeat(STDIO_LIMITS.result_bytes + 1) });
      assert.equal(over.error?.data?.code, 'invalid_params');
      assert.deepEqual((await app.answer(frame, { text: 'fine' })).result, { accepted: true });
      assert.deepEqual((await pending).content, [{ type: 'text', text: 'fine' }]);
    },
  );

  await t.test(
    'text of result_bytes that masking makes 7 times longer is cut within the budget, the masked whole spilled',
    async () => {
      const text = SHORT.repeat(STDIO_LIMITS.result_bytes / SHORT.length);
      const { pending, frame } = await call();
      assert.deepEqual((await app.answer(frame, { text })).result, { accepted: true });
      const r = await pending;
      assert.ok(frameBytes(r) <= RESULT_BUDGET_BYTES, `${frameBytes(r)} bytes`);
      assert.ok(!JSON.stringify(r).includes(SHORT));
      assert.equal(
        readFileSync(spillOf(r.content[0]!.text)!, 'utf8'),
        `[${LONG_NAME}]`.repeat(text.length / SHORT.length),
      );
    },
  );

  await t.test(
    'excessive expanded output: masking grows structured JSON past the budget; refused with invalid_params, the call kept',
    async () => {
      // 2900 occurrences of an 8-byte secret fit result_bytes; masked, each is 60 bytes: structuredContent alone
      // is more than 64 KiB, and none of it may be cut.
      const structured = { list: Array(2900).fill(SHORT) };
      assert.ok(Buffer.byteLength(JSON.stringify(structured)) <= STDIO_LIMITS.result_bytes);
      const { pending, frame } = await call();
      const refused = await app.answer(frame, { text: '', structured });
      assert.equal(refused.error?.data?.code, 'invalid_params', JSON.stringify(refused));
      assert.match(refused.error.message, /does not fit the 64 KiB result budget/);
      assert.deepEqual(
        (await app.answer(frame, { text: 'smaller', structured: { list: [SHORT] } })).result,
        { accepted: true },
      );
      const r = await pending;
      assert.deepEqual(r.structuredContent, { list: [`[${LONG_NAME}]`] });
    },
  );

  await t.test(
    'a redaction collision (two keys equal after masking) is refused with invalid_params, never merged',
    async () => {
      const { pending, frame } = await call();
      const refused = await app.answer(frame, {
        text: '',
        structured: { [SECRET]: 1, '[VENDOR_TOKEN]': 2 },
      });
      assert.equal(refused.error?.data?.code, 'invalid_params', JSON.stringify(refused));
      assert.match(refused.error.message, /two keys equal/);
      assert.deepEqual((await app.answer(frame, { text: 'ok' })).result, { accepted: true });
      assert.deepEqual((await pending).content, [{ type: 'text', text: 'ok' }]);
    },
  );
});
