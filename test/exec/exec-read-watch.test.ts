import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { ReadWatch, type WatchedRead } from '../../daemon/http/read-watch.js';
import { FakeClock } from '../../devkit/auth-clock.js';

/** A read registered at the clock's current time; `stopped` records why and when it was stopped. */
function read(clock: FakeClock, signal: AbortSignal, deadlineMs = 5_000) {
  const r = {
    stopped: [] as { why: string; at: number }[],
    w: undefined as unknown as WatchedRead,
  };
  r.w = {
    deadlineAt: clock.now() + deadlineMs,
    signal,
    stop: (why) => r.stopped.push({ why, at: clock.now() }),
  };
  return r;
}

test('one shared timer still stops every read exactly at its own absolute deadline', () => {
  const clock = new FakeClock();
  const t0 = clock.now();
  const watch = new ReadWatch(clock);
  const signal = new AbortController().signal;
  const a = read(clock, signal);
  watch.add(a.w);
  clock.advance(1_200);
  const b = read(clock, signal);
  watch.add(b.w);
  clock.advance(100);
  const c = read(clock, signal, 2_000); // a shorter deadline registered later re-arms the timer earlier
  watch.add(c.w);
  const done = read(clock, signal);
  watch.add(done.w);
  clock.advance(10);
  watch.remove(done.w); // ended normally: never stopped
  assert.equal(watch.size, 3);

  clock.advance(5_000 - 1_310 - 1);
  assert.deepEqual(c.stopped, [{ why: 'deadline', at: t0 + 3_300 }]);
  assert.deepEqual(a.stopped, [], 'not a millisecond early');
  clock.advance(1);
  assert.deepEqual(a.stopped, [{ why: 'deadline', at: t0 + 5_000 }]);
  assert.deepEqual(b.stopped, []);
  clock.advance(1_199);
  assert.deepEqual(b.stopped, []);
  clock.advance(1);
  assert.deepEqual(b.stopped, [{ why: 'deadline', at: t0 + 6_200 }]);
  clock.advance(60_000);
  assert.deepEqual(done.stopped, []);
  assert.equal(watch.size, 0);
  for (const r of [a, b, c]) assert.equal(r.stopped.length, 1, 'stopped once');
});

test('revocation stops at once the reads of that authorization only, and a revoked signal is refused on arrival', () => {
  const clock = new FakeClock();
  const watch = new ReadWatch(clock);
  const first = new AbortController();
  const second = new AbortController();
  const x = read(clock, first.signal);
  const y = read(clock, first.signal);
  const z = read(clock, second.signal);
  for (const r of [x, y, z]) watch.add(r.w);
  watch.remove(y.w);
  clock.advance(1_000);
  first.abort();
  assert.deepEqual(x.stopped, [{ why: 'revoked', at: clock.now() }]);
  assert.deepEqual(y.stopped, [], 'a read that already ended is not touched');
  assert.deepEqual(z.stopped, []);
  const late = read(clock, first.signal);
  watch.add(late.w);
  assert.deepEqual(late.stopped, [{ why: 'revoked', at: clock.now() }]);
  clock.advance(4_000);
  assert.deepEqual(z.stopped, [{ why: 'deadline', at: clock.now() }]);
  assert.equal(x.stopped.length, 1, 'the deadline does not stop a revoked read again');
  assert.equal(watch.size, 0);
});
