import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { ListChangedNotifier } from '../../daemon/tools/notify.js';
import { FakeClock } from '../../devkit/auth-clock.js';

test('change notices (subscribers of the one coalescer): the first change is announced at once, a burst folds into one notice a second', () => {
  const clock = new FakeClock();
  const notices = new ListChangedNotifier(clock);
  const seen: number[] = [];
  const stop = notices.subscribe(() => seen.push(clock.now()));
  const t0 = clock.now();

  notices.changed();
  assert.deepEqual(seen, [t0], 'a change after a quiet interval goes out immediately');

  clock.advance(100);
  for (let i = 0; i < 50; i++) notices.changed();
  clock.advance(100);
  notices.changed();
  assert.equal(seen.length, 1, 'changes inside the interval wait');
  clock.advance(799);
  assert.equal(seen.length, 1);
  clock.advance(1);
  assert.deepEqual(
    seen,
    [t0, t0 + 1_000],
    'the burst becomes one notice at the end of the interval',
  );

  clock.advance(5_000);
  notices.changed();
  assert.deepEqual(seen, [t0, t0 + 1_000, t0 + 6_000]);

  stop();
  clock.advance(2_000);
  notices.changed();
  assert.equal(seen.length, 3, 'a removed listener hears nothing');
});

test('change notices (subscribers of the one coalescer): one throwing listener does not stop the others', () => {
  const clock = new FakeClock();
  const notices = new ListChangedNotifier(clock);
  let reached = 0;
  notices.subscribe(() => {
    throw new Error('broken stream');
  });
  notices.subscribe(() => reached++);
  notices.changed();
  assert.equal(reached, 1);
});
