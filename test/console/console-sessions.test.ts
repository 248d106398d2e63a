import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { FakeClock } from '../../devkit/auth-clock.js';
import { CODE_TTL_MS, ConsoleSessions, SESSION_TTL_MS } from '../../daemon/console/sessions.js';
import { sameSecret } from '../../lib/same-secret.js';

/** The console's one-time codes and sessions, with an injected clock: every expiry at its limit and one past it. */

test('a code works once, up to 1 ms before its 60 s expiry, and never at or after it', () => {
  const clock = new FakeClock();
  const s = new ConsoleSessions(clock);
  const a = s.issueCode();
  assert.equal(a.expiresAtMs - clock.now(), CODE_TTL_MS);
  clock.advance(CODE_TTL_MS - 1);
  const got = s.exchange(a.code);
  assert.ok(got, 'valid at 59.999 s');
  assert.equal(s.exchange(a.code), null, 'a second use is refused');
  const b = s.issueCode();
  clock.advance(CODE_TTL_MS);
  assert.equal(s.exchange(b.code), null, 'refused at exactly 60 s');
  assert.equal(s.exchange(b.code), null);
});

test('a failed or expired use still consumes the code; unknown codes are refused', () => {
  const clock = new FakeClock();
  const s = new ConsoleSessions(clock);
  const c = s.issueCode();
  clock.advance(CODE_TTL_MS + 1);
  assert.equal(s.exchange(c.code), null);
  clock.advance(-CODE_TTL_MS - 1);
  assert.equal(s.exchange(c.code), null, 'gone even if the clock steps back');
  assert.equal(s.exchange(''), null);
  assert.equal(s.exchange('x'.repeat(43)), null);
});

test('a session lasts its own 12 h, up to 1 ms before; its CSRF token differs from its id', () => {
  const clock = new FakeClock();
  const s = new ConsoleSessions(clock);
  const { sessionId, session } = s.exchange(s.issueCode().code)!;
  assert.notEqual(session.csrf, sessionId);
  assert.match(sessionId, /^[A-Za-z0-9_-]{43}$/);
  clock.advance(SESSION_TTL_MS - 1);
  assert.equal(s.lookup(sessionId)?.csrf, session.csrf);
  clock.advance(1);
  assert.equal(s.lookup(sessionId), null);
  assert.equal(s.lookup(undefined), null);
});

test('ending a session signs it out; at most 32 codes and 32 sessions are kept, oldest dropped first', () => {
  const clock = new FakeClock();
  const s = new ConsoleSessions(clock);
  const first = s.exchange(s.issueCode().code)!;
  s.end(first.sessionId);
  assert.equal(s.lookup(first.sessionId), null);
  const codes = Array.from({ length: 33 }, () => s.issueCode().code);
  assert.equal(s.exchange(codes[0]!), null, 'the 33rd code pushed out the first');
  const ids = codes.slice(1).map((c) => s.exchange(c)!.sessionId);
  assert.equal(ids.length, 32);
  assert.ok(ids.every((id) => s.lookup(id)));
  const extra = s.exchange(s.issueCode().code)!;
  assert.equal(s.lookup(ids[0]!), null, 'the 33rd session pushed out the oldest');
  assert.ok(s.lookup(extra.sessionId));
});

test('property: no code other than the issued one signs in; CSRF comparison is exact', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 0, maxLength: 64 }), (guess) => {
      const s = new ConsoleSessions(new FakeClock());
      const { code } = s.issueCode();
      fc.pre(guess !== code);
      return s.exchange(guess) === null && s.exchange(code) !== null;
    }),
  );
  fc.assert(fc.property(fc.string(), fc.string(), (a, b) => sameSecret(a, b) === (a === b)));
});
