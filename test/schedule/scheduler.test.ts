import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { scheduledMessageCreate } from '../../catalog/domains/scheduled-message.js';
import { STORE_DOMAINS, STORE_MIGRATIONS } from '../../daemon/domains/list.js';

/* The scheduler's inner workings without a daemon: its timing on a fake clock and a stand-in source, and the delivery transaction. */

test('scheduler: ticks never overlap, a wake during a tick re-arms after it, stop waits for the running tick, maxSleepMs polls an idle store', async () => {
  const { Scheduler } = await import('../../daemon/schedule/scheduler.js');
  const { FakeClock } = await import('../../devkit/auth-clock.js');
  const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  let due: number | null = null;
  let running = 0;
  let overlapped = false;
  let release: (() => void) | null = null;
  let runs = 0;
  let asked = 0;
  const source = {
    async runDue() {
      runs++;
      if (running++) overlapped = true;
      await new Promise<void>((r) => (release = r));
      running--;
      return [];
    },
    async nextDueAt() {
      asked++;
      return due;
    },
  };
  const s = new Scheduler(clock, [source]);
  const first = s.start();
  const second = s.tick();
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 1, 'the second tick waits for the first');
  due = clock.now() + 5000;
  s.wake(); // during the tick: covered by the re-arm that ends it
  let stopped = false;
  release!();
  await first;
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 2);
  const stopping = s.stop().then(() => (stopped = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(stopped, false, 'stop waits for the running tick');
  release!();
  await second;
  await stopping;
  assert.equal(overlapped, false);
  assert.equal(clock.nextAt(), undefined, 'no timer after stop');

  // Without maxSleepMs an idle store arms no timer; with it, the scheduler looks again after maxSleepMs.
  due = null;
  const quiet = new Scheduler(clock, [{ runDue: async () => [], nextDueAt: async () => null }]);
  await quiet.start();
  assert.equal(clock.nextAt(), undefined);
  await quiet.stop();
  const polling = new Scheduler(
    clock,
    [{ runDue: async () => [], nextDueAt: async () => null }],
    () => {},
    { maxSleepMs: 1000 },
  );
  await polling.start();
  assert.equal(clock.nextAt(), clock.now() + 1000);
  const soon = new Scheduler(
    clock,
    [{ runDue: async () => [], nextDueAt: async () => clock.now() + 60_000 }],
    () => {},
    { maxSleepMs: 1000 },
  );
  await polling.stop();
  await soon.start();
  assert.equal(
    clock.nextAt(),
    clock.now() + 1000,
    'a due time beyond maxSleepMs is looked at again after maxSleepMs',
  );
  await soon.stop();
  assert.ok(asked > 0);
});

test('scheduler: a due time that stays past after an empty tick (held by another daemon) backs off instead of spinning', async () => {
  const { Scheduler, STALL_BACKOFF_MS } = await import('../../daemon/schedule/scheduler.js');
  const { FakeClock } = await import('../../devkit/auth-clock.js');
  const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  const heldSince = clock.now() - 1;
  let ticks = 0;
  let held = true;
  const source = {
    async runDue() {
      ticks++;
      return held ? [] : [{ scheduleId: 's', delivered: true, late: false, missed: 1 }];
    },
    async nextDueAt() {
      return held || ticks === 0 ? heldSince : null;
    },
  };
  const s = new Scheduler(clock, [source], () => {}, { maxSleepMs: 1000 });
  await s.start();
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    const at = clock.nextAt()!;
    waits.push(at - clock.now());
    await clock.advanceAsync(at - clock.now(), () => s.idle());
  }
  assert.deepEqual(waits, [
    STALL_BACKOFF_MS,
    2 * STALL_BACKOFF_MS,
    4 * STALL_BACKOFF_MS,
    8 * STALL_BACKOFF_MS,
    16 * STALL_BACKOFF_MS,
    1000,
  ]);
  assert.equal(ticks, 7);
  // Once the other daemon lets go, the next tick delivers and the backoff is over.
  held = false;
  await clock.advanceAsync(clock.nextAt()! - clock.now(), () => s.idle());
  assert.equal(ticks, 8);
  assert.equal(clock.nextAt(), clock.now() + 1000, 'back to polling');
  await s.stop();
});

test('holdMs keeps the delivery transaction open after the message is written; other statements wait for the commit', async () => {
  const { ScheduleDelivery } = await import('../../daemon/store/schedule-delivery.js');
  const { MessageStore } = await import('../../daemon/store/messages.js');
  const { SqliteSql } = await import('../../daemon/store/sqlite-sql.js');
  const { TeamServer } = await import('../../daemon/store/team-server.js');
  const { openDb } = await import('../../daemon/store/db.js');
  const { FakeClock } = await import('../../devkit/auth-clock.js');
  const clock = new FakeClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  const db = openDb(':memory:', STORE_MIGRATIONS);
  const sql = new SqliteSql(db, ':memory:');
  try {
    const server = (await TeamServer.open(sql, () => clock.now(), STORE_DOMAINS)).forCaller({
      serverId: 's1',
      agentId: 'a1',
    });
    const at = new Date(clock.now() + 1000).toISOString();
    const id = (
      await server.call(scheduledMessageCreate, { target: 'channel:held', content: 'held', at })
    ).scheduledMessage.id;
    const delivery = new ScheduleDelivery(sql, new MessageStore(sql, clock), { holdMs: 200 });
    clock.advance(1000);
    const started = Date.now();
    const running = delivery.runDue(clock.now());
    await new Promise((r) => setImmediate(r));
    const seen = await sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM messages WHERE target = ?',
      ['channel:held'],
    );
    assert.ok(Date.now() - started >= 150, 'the read waited for the held transaction');
    assert.equal(seen!.n, 1);
    const out = await running;
    assert.deepEqual(
      out.map((r) => [r.scheduleId, r.delivered]),
      [[id, true]],
    );
    assert.deepEqual(await delivery.runDue(clock.now()), [], 'delivered once');
  } finally {
    await sql.close();
  }
});
