import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import {
  connectAgent,
  connectApp,
  echoTool,
  type Agent,
  type App,
} from '../../devkit/client-tools.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * Over the HTTP/SSE relay, an app's answer reaches the agent's MCP
 * tools/call within the 64 KiB result budget, whatever the app sends, and
 * nothing is lost on the way: a cut text names the spill file holding all
 * of it, an image too large to carry is a text block naming its file, and
 * what cannot be cut and does not fit is refused to the app, whose call
 * then stays pending for a corrected answer.
 */

type Result = {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  isError?: boolean;
};

const SECRET = 'correct-horse-battery';
const frameBytes = (r: unknown) => Buffer.byteLength(JSON.stringify(r), 'utf8');
const spillOf = (text: string) => /the whole output is in (\S+) \.\.\.\]/.exec(text)?.[1];

/** The agent calls; the app claims and answers; resolves with the app's HTTP answer and the agent's promise. */
async function relay(app: App, agent: Agent, answer: Record<string, unknown>) {
  const seen = new Set(
    app.frames.filter((f) => f.type === 'client_tool.request').map((f) => f.data.request_id),
  );
  const pending = agent.client.callTool({
    name: 'big_echo',
    arguments: { text: 'x' },
  }) as Promise<Result>;
  const req = await app.next<{ request_id: string }>(
    (f) => f.type === 'client_tool.request' && !seen.has(f.data.request_id),
  );
  assert.equal((await app.claim(req.data.request_id)).status, 200);
  const answered = await app.answer(req.data.request_id, answer);
  return { id: req.data.request_id, answered, pending };
}

test('HTTP/SSE relay: every result an agent reads is within the 64 KiB budget, and nothing is silently lost', async (t) => {
  const h = await prepareHome(t, { env: { VENDOR_TOKEN: SECRET } });
  const app = await connectApp(h as never);
  t.after(() => app.close());
  assert.equal((await app.register('big', [echoTool('big_echo')])).status, 200);
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());
  const overhead = frameBytes({ content: [{ type: 'text', text: '' }], isError: false });

  await t.test('a result of exactly 65536 bytes passes byte for byte', async () => {
    const text = 'a'.repeat(RESULT_BUDGET_BYTES - overhead);
    const { answered, pending } = await relay(app, agent, {
      ok: true,
      content: [{ type: 'text', text }],
    });
    assert.equal(answered.status, 200);
    const r = await pending;
    assert.equal(frameBytes(r), RESULT_BUDGET_BYTES);
    assert.equal(r.content[0]!.text, text);
  });

  await t.test(
    'one byte more: head and tail within the budget, the whole in the spill file the note names',
    async () => {
      const text = Array.from({ length: RESULT_BUDGET_BYTES - overhead + 1 }, (_, i) =>
        String.fromCharCode(97 + (i % 26)),
      ).join('');
      const { pending } = await relay(app, agent, { ok: true, content: [{ type: 'text', text }] });
      const r = await pending;
      assert.ok(frameBytes(r) <= RESULT_BUDGET_BYTES, `${frameBytes(r)} bytes`);
      const cut = r.content[0]!.text!;
      const note =
        /\n\[\.\.\. (\d+) of (\d+) bytes dropped from the middle; the whole output is in \S+ \.\.\.\]\n/.exec(
          cut,
        );
      assert.ok(note, 'the note between head and tail');
      const head = cut.slice(0, note.index);
      const tail = cut.slice(note.index + note[0].length);
      assert.ok(
        head.length > 30_000 && tail.length > 30_000,
        `half the room each: ${head.length} + ${tail.length}`,
      );
      assert.ok(text.startsWith(head) && text.endsWith(tail));
      assert.equal(Number(note[2]), text.length);
      assert.equal(
        head.length + Number(note[1]) + tail.length,
        text.length,
        'the note counts what it dropped',
      );
      assert.equal(readFileSync(spillOf(cut)!, 'utf8'), text);
    },
  );

  await t.test('a quote costs two bytes inside JSON: 40 000 of them are cut too', async () => {
    const text = '"'.repeat(40_000);
    const r = await (await relay(app, agent, { ok: true, content: [{ type: 'text', text }] }))
      .pending;
    assert.ok(frameBytes(r) <= RESULT_BUDGET_BYTES, `${frameBytes(r)} bytes`);
    assert.equal(readFileSync(spillOf(r.content[0]!.text!)!, 'utf8'), text);
  });

  await t.test(
    'several text blocks: the total is bounded, a small block stays whole, each cut block names its own spill',
    async () => {
      const blocks = ['p', 'q', 'r', 's'].map((c) => `${c.repeat(64 * 1024)}`);
      const content = [
        { type: 'text', text: 'small and whole' },
        ...blocks.map((text) => ({ type: 'text', text })),
      ];
      const r = await (await relay(app, agent, { ok: true, content })).pending;
      assert.ok(frameBytes(r) <= RESULT_BUDGET_BYTES, `${frameBytes(r)} bytes`);
      assert.equal(r.content.length, 5);
      assert.equal(r.content[0]!.text, 'small and whole');
      const sizes = r.content.slice(1).map((b) => Buffer.byteLength(b.text!));
      assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 8, `even shares: ${sizes}`);
      blocks.forEach((text, i) => {
        assert.equal(readFileSync(spillOf(r.content[i + 1]!.text!)!, 'utf8'), text);
      });
    },
  );

  await t.test(
    'an image of 5 MiB becomes a text block naming its file, type and size; the file holds its bytes',
    async () => {
      const png = randomBytes(5 * 1024 * 1024);
      const content = [
        { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
        { type: 'text', text: 'caption' },
      ];
      const r = await (await relay(app, agent, { ok: true, content })).pending;
      assert.ok(frameBytes(r) <= RESULT_BUDGET_BYTES, `${frameBytes(r)} bytes`);
      assert.equal(r.content[0]!.type, 'text');
      const m =
        /^\[image image\/png, 5242880 bytes, not sent inline: .* the image is in (\S+\.png)\]$/.exec(
          r.content[0]!.text!,
        );
      assert.ok(m, r.content[0]!.text);
      assert.ok(readFileSync(m[1]!).equals(png));
      assert.deepEqual(r.content[1], { type: 'text', text: 'caption' });
    },
  );

  await t.test('a small image within the budget still passes inline', async () => {
    const content = [
      { type: 'image', data: randomBytes(3000).toString('base64'), mimeType: 'image/png' },
    ];
    const r = await (await relay(app, agent, { ok: true, content })).pending;
    assert.deepEqual(r.content, content);
  });

  await t.test(
    'what is never cut and does not fit is refused to the app (validation_failed); the call stays pending',
    async () => {
      // 6000 occurrences of the secret: masked to [VENDOR_TOKEN] each, the block's _meta grows past the budget.
      const expanded = {
        ok: true,
        content: [{ type: 'text', text: 'ok', _meta: { list: Array(6000).fill(SECRET) } }],
      };
      const { id, answered, pending } = await relay(app, agent, expanded);
      assert.equal(answered.status, 400, JSON.stringify(answered.body));
      assert.equal(answered.body.error.code, 'validation_failed');
      assert.match(answered.body.error.message, /does not fit the 64 KiB result budget/);
      const again = await app.answer(id, {
        ok: true,
        content: [{ type: 'text', text: 'corrected' }],
      });
      assert.equal(again.status, 200, 'the corrected answer settles the same call');
      assert.deepEqual((await pending).content, [{ type: 'text', text: 'corrected' }]);
    },
  );

  await t.test(
    'an app error message of 1 MiB reaches the agent bounded, the whole spilled',
    async () => {
      const message = 'e'.repeat(1024 * 1024);
      const r = await (
        await relay(app, agent, { ok: false, error: { code: 'app_failed', message } })
      ).pending;
      assert.equal(r.isError, true);
      assert.ok(frameBytes(r) <= RESULT_BUDGET_BYTES, `${frameBytes(r)} bytes`);
      assert.match(r.content[0]!.text!, /^app_failed: e+\n\[\.\.\./);
      assert.equal(readFileSync(spillOf(r.content[0]!.text!)!, 'utf8'), `app_failed: ${message}`);
    },
  );
});
