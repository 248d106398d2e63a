import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { cursorCases, startInProc } from '../../devkit/inproc.js';
import { call, closeHttp } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime } from '../../devkit/daemon.js';

test.after(() => closeHttp());

test('real daemon: an agent asks, a person decides from the CLI with a note, the agent sees the decision', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const asked = await call(rt, 'approval', 'request', {
    title: 'Drop the staging database',
    detail: 'It is rebuilt nightly.',
  });
  assert.equal(asked.status, 200, asked.text);
  const a = asked.json.data.approval;
  assert.deepEqual(
    [a.status, a.requestedBy, a.decidedBy, a.note],
    ['pending', 'agent:a1', null, null],
  );
  const own = await call(rt, 'approval', 'decide', { id: a.id, decision: 'approve' });
  assert.equal(own.json.error.code, 'forbidden');
  const bad = await cli(d.home, ['approval', 'decide', a.id, 'maybe']);
  assert.equal(bad.code, 2);
  const r = await cli(d.home, [
    'approval',
    'decide',
    a.id,
    'reject',
    '--note',
    'Not before the release',
    '--as',
    'human:ana',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).data.approval.status, 'denied');
  const seen = (await call(rt, 'approval', 'get', { id: a.id })).json.data.approval;
  assert.deepEqual(
    [seen.status, seen.note, seen.decidedBy, seen.revision],
    ['denied', 'Not before the release', 'human:ana', 2],
  );
  assert.ok(seen.decidedAt);
  const again = await cli(d.home, ['approval', 'decide', a.id, 'approve']);
  assert.equal(again.code, 1);
  assert.equal(JSON.parse(again.stdout).error.code, 'already_decided');
  const shown = await cli(d.home, ['approval', 'get', a.id]);
  assert.equal(JSON.parse(shown.stdout).data.approval.status, 'denied');
  const missing = await cli(d.home, ['approval', 'decide', 'appr_000000000000', 'approve']);
  assert.equal(JSON.parse(missing.stdout).error.code, 'not_found');
});

test('an undecided request expires: get shows expired, deciding it is expired, another agent may decide in time', async (t) => {
  const p = await startInProc(t);
  const a1 = await p.runtime('s1', 'a1');
  const a2 = await p.runtime('s1', 'a2');
  const short = (await a1('approval', 'request', { title: 'short', expiresInSeconds: 60 })).json
    .data.approval;
  const long = (await a1('approval', 'request', { title: 'long' })).json.data.approval;
  assert.equal(Date.parse(long.expiresAt) - Date.parse(long.createdAt), 24 * 3600 * 1000);
  p.clock.advance(59_999);
  assert.equal(
    (await a1('approval', 'get', { id: short.id })).json.data.approval.status,
    'pending',
  );
  p.clock.advance(1);
  assert.equal(
    (await a1('approval', 'get', { id: short.id })).json.data.approval.status,
    'expired',
  );
  const late = await a2('approval', 'decide', { id: short.id, decision: 'approve' });
  assert.equal(late.json.error.code, 'expired');
  await assert.rejects(
    p.services.approvals.decideAsOperator(short.id, 'approve', null, 'human:ana'),
    /expired/,
  );
  const ok = await a2('approval', 'decide', { id: long.id, decision: 'approve', note: 'fine' });
  assert.deepEqual(
    [ok.json.data.approval.status, ok.json.data.approval.decidedBy],
    ['approved', 'agent:a2'],
  );
  const expiredList = await a1('approval', 'list', { status: 'expired' });
  assert.deepEqual(
    expiredList.json.data.approvals.map((x: { id: string }) => x.id),
    [short.id],
  );
  const bad = await a1('approval', 'request', { title: 'x', expiresInSeconds: 59 });
  assert.equal(bad.json.error.code, 'validation_failed');
});

test('approval list pages newest first and rejects bad, foreign and filter-mismatched cursors', async (t) => {
  const p = await startInProc(t);
  const call1 = await p.runtime('s1', 'a1');
  const other = await p.runtime('s2', 'a1');
  const ids: string[] = [];
  for (let i = 0; i < 23; i++) {
    p.clock.advance(i % 3 === 0 ? 0 : 1000); // some share a createdAt: the id breaks the tie
    ids.push((await call1('approval', 'request', { title: `t${i}` })).json.data.approval.id);
  }
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const r = await call1('approval', 'list', {
      status: 'pending',
      limit: 4,
      ...(cursor ? { cursor } : {}),
    });
    seen.push(...r.json.data.approvals.map((x: { id: string }) => x.id));
    cursor = r.json.data.nextCursor;
  } while (cursor);
  assert.deepEqual([...seen].sort(), [...ids].sort());
  assert.equal(new Set(seen).size, 23);
  const page = await call1('approval', 'list', { status: 'pending', limit: 2 });
  assert.deepEqual(
    await cursorCases(
      call1,
      other,
      'approval',
      'list',
      { status: 'pending' },
      page.json.data.nextCursor,
      { status: 'approved' },
    ),
    [],
  );
  assert.equal((await other('approval', 'get', { id: ids[0] })).json.error.code, 'not_found');
});
