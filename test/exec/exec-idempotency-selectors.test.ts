import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { call, closeHttp, post } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Runtime } from '../../devkit/daemon.js';
import { cleanEnv, runCli } from '../../devkit/cli.js';

test.after(() => closeHttp());

const KEY_HEADER = 'idempotency-key';
const RID_HEADER = 'x-request-id';

async function taskCount(rt: Runtime): Promise<number> {
  const r = await call(rt, 'task', 'list', { limit: 100 });
  return r.json.data.tasks.length;
}

function create(rt: Runtime, body: unknown, headers: Record<string, string> = {}) {
  return post(`${rt.base}/task/create`, rt.token(), JSON.stringify(body), headers);
}

/** The built CLI as a runtime would run it: the runtime's environment, nothing else. */
function exec(rt: Runtime, args: string[]) {
  return runCli(['exec', ...args], { env: cleanEnv(rt.env) });
}

test('idempotency selectors through a real daemon (HTTP) and the built CLI', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());

  await t.test(
    'requestId replays the first result, like idempotencyKey, and names the same record',
    async () => {
      const first = await create(rt, { title: 'by request id', requestId: 'rid-1' });
      assert.equal(first.status, 200);
      const again = await create(rt, { title: 'by request id', requestId: 'rid-1' });
      assert.equal(again.text, first.text);
      const other = await create(rt, { title: 'by request id', idempotencyKey: 'rid-1' });
      assert.equal(other.text, first.text, 'idempotencyKey with the same value is the same record');
      const both = await create(rt, {
        title: 'by request id',
        idempotencyKey: 'rid-1',
        requestId: 'rid-1',
      });
      assert.equal(both.text, first.text);
      const viaCli = await exec(rt, [
        'task',
        'create',
        '{"title":"by request id","requestId":"rid-1"}',
      ]);
      assert.equal(viaCli.code, 0, viaCli.stderr);
      assert.deepEqual(JSON.parse(viaCli.stdout), first.json);
      assert.equal(await taskCount(rt), 1);
    },
  );

  await t.test(
    'the same selector with another body is idempotency_conflict (HTTP and CLI)',
    async () => {
      const before = await taskCount(rt);
      const http = await create(rt, { title: 'another body', requestId: 'rid-1' });
      assert.equal(http.status, 409);
      assert.equal(http.json.error.code, 'idempotency_conflict');
      const viaCli = await exec(rt, [
        'task',
        'create',
        '{"title":"another body","idempotencyKey":"rid-1"}',
      ]);
      assert.equal(viaCli.code, 1);
      assert.equal(JSON.parse(viaCli.stdout).error.code, 'idempotency_conflict');
      assert.equal(await taskCount(rt), before);
    },
  );

  await t.test(
    'conflicting dual selectors are rejected before dispatch (HTTP: validation_failed at /requestId; CLI: locally)',
    async () => {
      const before = await taskCount(rt);
      const http = await create(rt, { title: 'dual', idempotencyKey: 'k-a', requestId: 'k-b' });
      assert.equal(http.status, 400);
      assert.equal(http.json.error.code, 'validation_failed');
      assert.deepEqual(
        http.json.error.details.map((x: { path: string }) => x.path),
        ['/requestId'],
      );
      const viaCli = await exec(rt, [
        'task',
        'create',
        '{"title":"dual","idempotencyKey":"k-a","requestId":"k-b"}',
      ]);
      assert.equal(viaCli.code, 2);
      assert.equal(JSON.parse(viaCli.stdout).error.details[0].path, '/requestId');
      assert.equal(await taskCount(rt), before);
    },
  );

  await t.test('body/header disagreement is rejected before dispatch', async () => {
    const before = await taskCount(rt);
    const cases: [unknown, Record<string, string>][] = [
      [{ title: 'h', idempotencyKey: 'body-1' }, { [KEY_HEADER]: 'head-1' }],
      [{ title: 'h', requestId: 'body-1' }, { [RID_HEADER]: 'head-1' }],
      [
        { title: 'h', idempotencyKey: 'body-1' },
        { [KEY_HEADER]: 'body-1', [RID_HEADER]: 'head-1' },
      ],
      [{ title: 'h' }, { [KEY_HEADER]: 'head-1', [RID_HEADER]: 'head-2' }],
    ];
    for (const [body, headers] of cases) {
      const r = await create(rt, body, headers);
      assert.equal(r.status, 400, JSON.stringify(headers));
      assert.equal(r.json.error.code, 'invalid_request');
    }
    // Agreement is accepted: the CLI's own way of sending it.
    const ok = await create(
      rt,
      { title: 'agreed', idempotencyKey: 'agreed-1' },
      { [KEY_HEADER]: 'agreed-1', [RID_HEADER]: 'agreed-1' },
    );
    assert.equal(ok.status, 200);
    assert.equal(await taskCount(rt), before + 1);
  });

  await t.test(
    'an Idempotency-Key header without a body selector is the selector: replayed, and a different body conflicts',
    async () => {
      const before = await taskCount(rt);
      const first = await create(rt, { title: 'header only' }, { [KEY_HEADER]: 'head-only-1' });
      assert.equal(first.status, 200, first.text);
      const again = await create(rt, { title: 'header only' }, { [KEY_HEADER]: 'head-only-1' });
      assert.equal(again.text, first.text, 'the same header replays the first result');
      const inBody = await create(rt, { title: 'header only', idempotencyKey: 'head-only-1' });
      assert.equal(inBody.text, first.text, 'the header named the same record as the body field');
      const other = await create(rt, { title: 'another title' }, { [KEY_HEADER]: 'head-only-1' });
      assert.equal(other.status, 409);
      assert.equal(other.json.error.code, 'idempotency_conflict');
      const rid = await create(rt, { title: 'rid header only' }, { [RID_HEADER]: 'head-only-2' });
      assert.equal(rid.status, 200, rid.text);
      assert.equal(
        (await create(rt, { title: 'rid header only' }, { [RID_HEADER]: 'head-only-2' })).text,
        rid.text,
      );
      assert.equal(await taskCount(rt), before + 2);
    },
  );

  await t.test(
    'malformed and oversized selectors are rejected: 128 bytes pass, 129 do not (body and header)',
    async () => {
      const before = await taskCount(rt);
      const max = 'k'.repeat(128);
      const at = await create(rt, { title: 'limit', idempotencyKey: max }, { [KEY_HEADER]: max });
      assert.equal(at.status, 200, at.text);
      const over = 'k'.repeat(129);
      const body = await create(rt, { title: 'limit', idempotencyKey: over });
      assert.equal(body.status, 400);
      assert.equal(body.json.error.details[0].path, '/idempotencyKey');
      const overRid = await create(rt, { title: 'limit', requestId: over });
      assert.equal(overRid.json.error.details[0].path, '/requestId');
      for (const bad of ['has space', 'é-accent', '', over]) {
        const b = await create(rt, { title: 'bad', requestId: bad });
        assert.equal(b.status, 400, bad);
        assert.equal(b.json.error.code, 'validation_failed');
      }
      for (const bad of ['has space', 'semi;colon', over]) {
        const h = await create(rt, { title: 'bad', requestId: 'fine-1' }, { [RID_HEADER]: bad });
        assert.equal(h.status, 400, bad);
        assert.equal(h.json.error.code, 'invalid_request');
      }
      // A header sent twice arrives joined ("a, a") and is not a selector.
      const twice = await new Promise<number>((resolve, reject) => {
        import('node:http').then(({ request }) => {
          const payload = JSON.stringify({ title: 'twice', idempotencyKey: 'a' });
          const req = request(`${rt.base}/task/create`, { method: 'POST' }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.setHeader('authorization', `Bearer ${rt.token()}`);
          req.setHeader('content-type', 'application/json');
          req.setHeader(KEY_HEADER, ['a', 'a']);
          req.on('error', reject);
          req.end(payload);
        }, reject);
      });
      assert.equal(twice, 400);
      const viaCli = await exec(rt, [
        'task',
        'create',
        JSON.stringify({ title: 'bad', requestId: over }),
      ]);
      assert.equal(viaCli.code, 2);
      // Selectors belong to mutations: a read with the header is refused.
      const read = await post(`${rt.base}/task/list`, rt.token(), '{}', { [KEY_HEADER]: 'read-1' });
      assert.equal(read.status, 400);
      assert.equal(read.json.error.code, 'invalid_request');
      assert.equal(await taskCount(rt), before + 1);
    },
  );

  await t.test('every mutation schema takes both selectors', async () => {
    for (const [domain, action] of [
      ['task', 'create'],
      ['task', 'update'],
      ['project', 'create'],
      ['review', 'add'],
    ] as const) {
      const r = await runCli(['exec', domain, action, '--input-schema']);
      const props = (JSON.parse(r.stdout) as { properties: Record<string, { maxLength?: number }> })
        .properties;
      assert.equal(props.idempotencyKey?.maxLength, 128, `${domain} ${action}`);
      assert.equal(props.requestId?.maxLength, 128, `${domain} ${action}`);
    }
  });
});
