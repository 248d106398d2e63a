import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { cursorCases, startInProc, type Caller } from '../../devkit/inproc.js';

const MIN = 60_000;

async function walkRuns(call: Caller, id: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const r = await call('scheduled-message', 'runs', { id, limit, ...(cursor ? { cursor } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    ids.push(...r.json.data.runs.map((x: { id: string }) => x.id));
    assert.equal(r.json.data.hasMore, 'nextCursor' in r.json.data);
    if (!r.json.data.hasMore) return ids;
    cursor = r.json.data.nextCursor;
  }
}

test('a one-off schedule due in 2 s is delivered exactly once and lands in the target history', async (t) => {
  const p = await startInProc(t);
  await p.services.scheduler.start();
  const call = await p.runtime();
  const at = new Date(p.clock.now() + 2000).toISOString();
  const c = await call('scheduled-message', 'create', {
    target: 'channel:ops',
    content: 'deploy window opens',
    at,
  });
  assert.equal(c.status, 200, JSON.stringify(c.json));
  const s = c.json.data.scheduledMessage;
  assert.deepEqual([s.status, s.nextRunAt, s.createdBy], ['active', at, 'agent:a1']);
  await p.advance(1999);
  assert.equal(
    (await p.services.messages.history({ serverId: 's1', target: 'channel:ops' })).messages.length,
    0,
  );
  await p.advance(1);
  await p.advance(10 * MIN);
  const h = await p.services.messages.history({ serverId: 's1', target: 'channel:ops' });
  assert.deepEqual(
    h.messages.map((m) => [m.content, m.author]),
    [['deploy window opens', 'agent:a1']],
  );
  const runs = await call('scheduled-message', 'runs', { id: s.id });
  assert.equal(runs.json.data.runs.length, 1);
  const run = runs.json.data.runs[0];
  assert.deepEqual(
    [run.outcome, run.late, run.missed, run.messageId, run.attemptedAt, run.dueAt],
    ['delivered', false, 1, h.messages[0]!.id, at, at],
  );
  const after = await call('scheduled-message', 'get', { id: s.id });
  assert.deepEqual(
    [after.json.data.scheduledMessage.status, after.json.data.scheduledMessage.nextRunAt],
    ['completed', null],
  );
  const cancel = await call('scheduled-message', 'cancel', { id: s.id });
  assert.equal(cancel.json.error.code, 'invalid_transition');
});

test('downtime across several cron occurrences gives one late run for the missed window, then the rule continues', async (t) => {
  const p = await startInProc(t);
  await p.services.scheduler.start();
  const call = await p.runtime();
  const c = await call('scheduled-message', 'create', {
    target: 'channel:ops',
    content: 'tick',
    cron: '* * * * *',
    timeZone: 'Europe/Berlin',
  });
  const id = c.json.data.scheduledMessage.id;
  await p.advance(MIN);
  assert.equal((await call('scheduled-message', 'runs', { id })).json.data.runs.length, 1);
  await p.services.scheduler.stop(); // the daemon is down
  await p.advance(10 * MIN + 30_000);
  await p.services.scheduler.start(); // restart: catch up
  const runs = (await call('scheduled-message', 'runs', { id })).json.data.runs;
  assert.equal(runs.length, 2);
  assert.deepEqual([runs[0].late, runs[0].missed, runs[0].outcome], [true, 10, 'delivered']);
  assert.equal(Date.parse(runs[0].attemptedAt) - Date.parse(runs[0].dueAt), 9 * MIN + 30_000);
  const s = (await call('scheduled-message', 'get', { id })).json.data.scheduledMessage;
  assert.equal(Date.parse(s.nextRunAt), p.clock.now() + 30_000);
  await p.advance(30_000);
  const more = (await call('scheduled-message', 'runs', { id })).json.data.runs;
  assert.deepEqual([more.length, more[0].late, more[0].missed], [3, false, 1]);
  assert.equal(
    (await p.services.messages.history({ serverId: 's1', target: 'channel:ops' })).messages.length,
    3,
  );
});

test('130 runs page without duplicates or gaps; runs cursors reject tampering, other schedules and other servers', async (t) => {
  const p = await startInProc(t);
  await p.services.scheduler.start();
  const call = await p.runtime();
  const other = await p.runtime('s2', 'a1');
  const a = (
    await call('scheduled-message', 'create', {
      target: 'channel:a',
      content: 'a',
      cron: '* * * * *',
      timeZone: 'UTC',
    })
  ).json.data.scheduledMessage.id;
  const b = (
    await call('scheduled-message', 'create', {
      target: 'channel:b',
      content: 'b',
      cron: '*/2 * * * *',
      timeZone: 'UTC',
    })
  ).json.data.scheduledMessage.id;
  for (let i = 0; i < 130; i++) await p.advance(MIN);
  for (const limit of [20, 100, 7]) {
    const ids = await walkRuns(call, a, limit);
    assert.equal(ids.length, 130);
    assert.equal(new Set(ids).size, 130);
  }
  const first = await call('scheduled-message', 'runs', { id: a, limit: 20 });
  const times = first.json.data.runs.map((r: { attemptedAt: string }) => Date.parse(r.attemptedAt));
  assert.deepEqual(
    times,
    [...times].sort((x, y) => y - x),
  );
  const failures = await cursorCases(
    call,
    other,
    'scheduled-message',
    'runs',
    { id: a },
    first.json.data.nextCursor,
    { id: b },
  );
  assert.deepEqual(failures, []);
  const unknown = await call('scheduled-message', 'runs', { id: 'sched_0000000000' });
  assert.equal(unknown.json.error.code, 'not_found');
});

test('list filters by status and target, pages newest first, and rejects bad cursors', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  const other = await p.runtime('s2', 'a1');
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) {
    await p.advance(1000);
    const r = await call('scheduled-message', 'create', {
      target: i % 2 ? 'channel:odd' : 'channel:even',
      content: `m${i}`,
      at: new Date(p.clock.now() + 3_600_000).toISOString(),
    });
    ids.push(r.json.data.scheduledMessage.id);
  }
  await call('scheduled-message', 'cancel', { id: ids[0] });
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const r = await call('scheduled-message', 'list', {
      status: 'active',
      limit: 5,
      ...(cursor ? { cursor } : {}),
    });
    seen.push(...r.json.data.scheduledMessages.map((s: { id: string }) => s.id));
    cursor = r.json.data.nextCursor;
  } while (cursor);
  assert.deepEqual(seen, ids.slice(1).reverse());
  const odd = await call('scheduled-message', 'list', { target: 'channel:odd', limit: 100 });
  assert.equal(odd.json.data.scheduledMessages.length, 12);
  const page = await call('scheduled-message', 'list', { status: 'active', limit: 2 });
  const failures = await cursorCases(
    call,
    other,
    'scheduled-message',
    'list',
    { status: 'active' },
    page.json.data.nextCursor,
    { status: 'cancelled' },
  );
  assert.deepEqual(failures, []);
});

test('create refuses ambiguous or impossible timing, with the field named', async (t) => {
  const p = await startInProc(t);
  const call = await p.runtime();
  const future = new Date(p.clock.now() + 60_000).toISOString();
  const cases: [Record<string, unknown>, string][] = [
    [{ at: future, cron: '* * * * *', timeZone: 'UTC' }, ''],
    [{}, ''],
    [{ cron: '* * * * *' }, '/timeZone'],
    [{ cron: '* * * * *', timeZone: 'Mars/Olympus' }, '/cron'],
    [{ cron: '61 * * * *', timeZone: 'UTC' }, '/cron'],
    [{ at: new Date(p.clock.now() - 1000).toISOString() }, '/at'],
    [{ at: '2026-02-30T10:00:00Z' }, '/at'],
    [{ at: future, timeZone: 'UTC' }, '/timeZone'],
  ];
  for (const [timing, path] of cases) {
    const r = await call('scheduled-message', 'create', {
      target: 'channel:x',
      content: 'x',
      ...timing,
    });
    assert.equal(r.json.error?.code, 'validation_failed', JSON.stringify(timing));
    assert.equal(r.json.error.details[0].path, path, JSON.stringify(timing));
  }
});

test('a failed delivery is recorded as a failed run with its error; a cancelled schedule never delivers', async (t) => {
  const p = await startInProc(t);
  await p.services.scheduler.start();
  const call = await p.runtime();
  const at = new Date(p.clock.now() + 5000).toISOString();
  const bad = (
    await call('scheduled-message', 'create', {
      target: 'thread:msg_doesnotexist',
      content: 'x',
      at,
    })
  ).json.data.scheduledMessage.id;
  const gone = (
    await call('scheduled-message', 'create', { target: 'channel:quiet', content: 'never', at })
  ).json.data.scheduledMessage.id;
  const c1 = await call('scheduled-message', 'cancel', { id: gone, idempotencyKey: 'c1' });
  assert.equal(c1.json.data.scheduledMessage.status, 'cancelled');
  const c2 = await call('scheduled-message', 'cancel', { id: gone });
  assert.equal(c2.json.data.scheduledMessage.revision, c1.json.data.scheduledMessage.revision);
  await p.advance(MIN);
  const runs = (await call('scheduled-message', 'runs', { id: bad })).json.data.runs;
  assert.equal(runs.length, 1);
  assert.equal(runs[0].outcome, 'failed');
  assert.match(runs[0].error, /^not_found: /);
  assert.equal(runs[0].messageId, null);
  assert.equal((await call('scheduled-message', 'runs', { id: gone })).json.data.runs.length, 0);
  assert.equal(
    (await p.services.messages.history({ serverId: 's1', target: 'channel:quiet' })).messages
      .length,
    0,
  );
});

test('concurrent reactions to one message all land (read-modify-write in one transaction)', async (t) => {
  const p = await startInProc(t);
  const m = await p.services.messages.send({
    serverId: 's1',
    target: 'channel:r',
    author: 'human:ana',
    content: 'x',
  });
  const { LIMITS } = await import('../../catalog/limits.js');
  await Promise.all(
    Array.from({ length: LIMITS.reactors }, (_, i) =>
      p.services.messages.react({
        serverId: 's1',
        messageId: m.id,
        emoji: '👍',
        author: `agent:a${i}`,
      }),
    ),
  );
  const h = await p.services.messages.history({ serverId: 's1', target: 'channel:r' });
  assert.equal(h.messages[0]!.reactions[0]!.authors.length, LIMITS.reactors);
});
