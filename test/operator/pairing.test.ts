import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import type { Clock } from '../../lib/clock.js';
import {
  PAIRING_FAILURES_MAX,
  PAIRING_TTL_MS,
  PairingCodes,
} from '../../daemon/operator/pairing.js';

/** Pairing codes on an injected clock: single use, a bounded lifetime, a bounded number of guesses. */

function fakeClock(): Clock & { advance(ms: number): void } {
  let now = 1_000_000;
  return {
    now: () => now,
    setTimeout: () => ({}),
    clearTimeout: () => undefined,
    advance(ms) {
      now += ms;
    },
  };
}

test('a code is spent once, forgiving case and the dash', () => {
  const codes = new PairingCodes(fakeClock());
  const { code } = codes.issue();
  assert.match(code, /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
  assert.equal(codes.spend(code.toLowerCase().replace('-', '')), true);
  assert.equal(codes.spend(code), false);
});

test('a code works until its lifetime ends and not one millisecond after', () => {
  const clock = fakeClock();
  const codes = new PairingCodes(clock);
  const a = codes.issue();
  const b = codes.issue();
  assert.equal(a.expiresAt, clock.now() + PAIRING_TTL_MS);
  clock.advance(PAIRING_TTL_MS - 1);
  assert.equal(codes.spend(a.code), true, 'at the last millisecond');
  clock.advance(1);
  assert.equal(codes.spend(b.code), false, 'at its expiry');
});

test('guessing is bounded: one wrong exchange short of the bound keeps the code, the bound voids it', () => {
  const codes = new PairingCodes(fakeClock());
  const a = codes.issue();
  for (let i = 0; i < PAIRING_FAILURES_MAX - 1; i++)
    assert.equal(codes.spend('00000-00000'), false);
  assert.equal(codes.spend(a.code), true, 'still valid after one guess fewer than the bound');
  const b = codes.issue();
  for (let i = 0; i < PAIRING_FAILURES_MAX; i++) codes.spend('00000-00000');
  assert.equal(codes.pending(), 0);
  assert.equal(codes.spend(b.code), false, 'voided by the bound');
});

test('at most four codes wait; a fifth pushes out the oldest', () => {
  const codes = new PairingCodes(fakeClock());
  const issued = Array.from({ length: 5 }, () => codes.issue().code);
  assert.equal(codes.pending(), 4);
  assert.equal(codes.spend(issued[0]!), false);
  for (const c of issued.slice(1)) assert.equal(codes.spend(c), true);
});
