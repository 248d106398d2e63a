import { test, type TestContext } from 'node:test';
import { strict as assert } from 'node:assert';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { errorEnvelopeSchema } from '../../catalog/envelope.js';
import { cleanEnv, runCli } from '../../devkit/cli.js';

const validEnvelope = new Ajv2020({ strict: false }).compile(errorEnvelopeSchema);
const TASK_ID = 'task_0123456789abcdefghij';

/**
 * A fake daemon: a real node:http server that answers every request with the
 * next hostile body of the test and records what the CLI sent.
 */
async function fakeDaemon(t: TestContext) {
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '{"ok":true,"data":{}}' };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-reproject-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'header.payload.signature', { mode: 0o600 });
  const { port } = server.address() as AddressInfo;
  const env = cleanEnv({
    AGENTTEAM_EXEC_BASE_URL: `http://127.0.0.1:${port}/api/internal/exec/servers/s1/agents/a1`,
    AGENTTEAM_EXEC_TOKEN_FILE: tokenFile,
  });
  return {
    seen,
    /** Runs `agentteam exec <args>` against the fake daemon answering `body`. */
    async exec(args: string[], body: unknown, status = 422) {
      answer = { status, body: typeof body === 'string' ? body : JSON.stringify(body) };
      const r = await runCli(['exec', ...args], { env });
      return { ...r, json: r.stdout ? (JSON.parse(r.stdout) as any) : undefined };
    },
  };
}

test('the CLI prints only the closed envelope contract, whatever the daemon sends', async (t) => {
  const d = await fakeDaemon(t);
  const create = ['task', 'create', JSON.stringify({ title: 'x', requestId: 'req-7' })];

  await t.test("the body's selector is forwarded as Idempotency-Key and X-Request-ID", async () => {
    await d.exec(create, { ok: true, data: { task: { id: TASK_ID } } }, 200);
    const last = d.seen.at(-1)!;
    assert.equal(last.headers['idempotency-key'], 'req-7');
    assert.equal(last.headers['x-request-id'], 'req-7');
    await d.exec(['task', 'list', '{}'], { ok: true, data: { tasks: [], hasMore: false } }, 200);
    assert.equal(d.seen.at(-1)!.headers['idempotency-key'], undefined, 'no selector, no header');
  });

  await t.test(
    'a mutation receipt is rebuilt from the catalog; wire paths, unknown keys and free text are dropped',
    async () => {
      const r = await d.exec(create, {
        ok: false,
        smuggled: 'top-level',
        error: {
          code: 'result_budget_exceeded',
          message: 'applied',
          stack: 'at secret.js:1',
          metadata: {
            mutation_applied: true,
            debug: { token: 'SECRET-TOKEN' },
            mutation_receipt: {
              entity: 'project',
              id: TASK_ID,
              revision: 3,
              title: 'SECRET-TITLE',
              idempotencyKey: 'wire-key',
              retrieval: { action: 'task delete', input: { id: '../../etc/passwd' } },
            },
          },
        },
      });
      assert.equal(r.code, 1);
      assert.ok(validEnvelope(r.json), JSON.stringify(validEnvelope.errors));
      assert.deepEqual(r.json, {
        ok: false,
        error: {
          code: 'result_budget_exceeded',
          message: 'applied',
          metadata: {
            mutation_applied: true,
            mutation_receipt: {
              entity: 'task',
              id: TASK_ID,
              revision: 3,
              requestId: 'req-7',
              retrieval: { action: 'task get', input: { id: TASK_ID } },
            },
          },
        },
      });
      assert.ok(!r.stdout.includes('SECRET'));
    },
  );

  await t.test(
    "a retrieval that would fail its action's validator is left out; a malformed selector is dropped",
    async () => {
      const bad = await d.exec(create, {
        ok: false,
        error: {
          code: 'result_budget_exceeded',
          message: 'm',
          metadata: {
            mutation_applied: true,
            mutation_receipt: { entity: 'task', id: 'NOT-AN-ID', revision: 'x' },
          },
        },
      });
      assert.deepEqual(bad.json.error.metadata.mutation_receipt, {
        entity: 'task',
        id: 'NOT-AN-ID',
        requestId: 'req-7',
      });
      const spaced = await d.exec(create, {
        ok: false,
        error: {
          code: 'result_budget_exceeded',
          message: 'm',
          metadata: {
            mutation_applied: true,
            mutation_receipt: { id: 'has space', revision: 1.5 },
          },
        },
      });
      assert.deepEqual(spaced.json.error.metadata.mutation_receipt, {
        entity: 'task',
        requestId: 'req-7',
      });
    },
  );

  await t.test(
    "metadata is kept only where the contract has it: a mutation's result_budget_exceeded",
    async () => {
      const applied = { mutation_applied: true, mutation_receipt: { id: TASK_ID } };
      const onRead = await d.exec(['task', 'get', JSON.stringify({ id: TASK_ID })], {
        ok: false,
        error: { code: 'result_budget_exceeded', message: 'm', metadata: applied },
      });
      assert.equal(onRead.json.error.metadata, undefined);
      const otherCode = await d.exec(
        create,
        { ok: false, error: { code: 'busy', message: 'm', metadata: applied } },
        409,
      );
      assert.equal(otherCode.json.error.metadata, undefined);
      const notApplied = await d.exec(create, {
        ok: false,
        error: {
          code: 'result_budget_exceeded',
          message: 'm',
          metadata: { mutation_applied: 'yes' },
        },
      });
      assert.equal(notApplied.json.error.metadata, undefined);
    },
  );

  await t.test('next survives only as a call the catalog validates', async () => {
    const ok = await d.exec(['task', 'list', '{}'], {
      ok: false,
      error: {
        code: 'result_budget_exceeded',
        message: 'm',
        next: { action: 'task list', input: { limit: 5 } },
      },
    });
    assert.deepEqual(ok.json.error.next, { action: 'task list', input: { limit: 5 } });
    for (const next of [
      { action: 'task list', input: { limit: 500 } },
      { action: 'task drop', input: {} },
      { action: 'rm -rf', input: {} },
      { action: 'task list', input: { limit: 5 }, extra: 'x'.repeat(100) },
      'task list',
    ]) {
      const r = await d.exec(['task', 'list', '{}'], {
        ok: false,
        error: { code: 'result_budget_exceeded', message: 'm', next },
      });
      const printed = r.json.error.next;
      if (printed !== undefined) assert.deepEqual(Object.keys(printed).sort(), ['action', 'input']);
      if (typeof next === 'object' && (next.input as { limit?: number }).limit === 500)
        assert.equal(printed, undefined);
      if (typeof next === 'object' && next.action !== 'task list') assert.equal(printed, undefined);
      assert.ok(validEnvelope(r.json));
    }
  });

  await t.test(
    'an unknown code becomes upstream_error; oversized errors are cut to 8 KiB with a count',
    async () => {
      const unknown = await d.exec(
        ['task', 'list', '{}'],
        { ok: false, error: { code: 'pwned', message: 'SECRET-MESSAGE' } },
        500,
      );
      assert.equal(unknown.code, 1);
      assert.equal(unknown.json.error.code, 'upstream_error');
      assert.ok(!unknown.stdout.includes('SECRET'));
      const details = Array.from({ length: 50_000 }, (_, i) => ({
        path: `/f${i}`,
        message: 'm'.repeat(1000),
        junk: i,
      }));
      const huge = await d.exec(
        ['task', 'list', '{}'],
        {
          ok: false,
          error: {
            code: 'validation_failed',
            message: 'x'.repeat(100_000),
            hint: 'h'.repeat(100_000),
            details,
          },
        },
        400,
      );
      assert.equal(huge.code, 2);
      assert.ok(
        Buffer.byteLength(huge.stdout) <= 8 * 1024,
        `${Buffer.byteLength(huge.stdout)} bytes`,
      );
      assert.ok(validEnvelope(huge.json));
      assert.equal(huge.json.error.details.length + huge.json.error.detailsOmitted, 50_000);
    },
  );

  await t.test('a success keeps ok and data only, and one over 64 KiB is not printed', async () => {
    const extra = await d.exec(
      ['task', 'list', '{}'],
      { ok: true, data: { tasks: [], hasMore: false }, debug: 'SECRET' },
      200,
    );
    assert.equal(extra.code, 0);
    assert.deepEqual(extra.json, { ok: true, data: { tasks: [], hasMore: false } });
    const bigRead = await d.exec(
      ['task', 'list', '{}'],
      { ok: true, data: { tasks: [{ title: 'x'.repeat(70_000) }], hasMore: false } },
      200,
    );
    assert.equal(bigRead.code, 1);
    assert.equal(bigRead.json.error.code, 'result_budget_exceeded');
    assert.equal(bigRead.json.error.metadata, undefined);
    const bigWrite = await d.exec(
      create,
      { ok: true, data: { task: { id: TASK_ID, revision: 1, title: 'x'.repeat(70_000) } } },
      200,
    );
    assert.equal(bigWrite.code, 1);
    assert.deepEqual(bigWrite.json.error.metadata, {
      mutation_applied: true,
      mutation_receipt: {
        entity: 'task',
        id: TASK_ID,
        revision: 1,
        requestId: 'req-7',
        retrieval: { action: 'task get', input: { id: TASK_ID } },
      },
    });
  });

  await t.test(
    'something that is no envelope is reported on stderr, an upstream_error envelope on stdout',
    async () => {
      for (const body of ['<html>', '[1,2]', '{"ok":"maybe"}', '{"ok":false}', '{"ok":true}']) {
        const r = await d.exec(['task', 'list', '{}'], body, 200);
        assert.equal(r.code, 1, body);
        assert.equal(JSON.parse(r.stdout).error.code, 'upstream_error');
        assert.match(r.stderr, /without a JSON envelope/);
      }
    },
  );
});
