import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { parseProfile, ProfileError } from '../../daemon/profile/parse.js';

/** The profile's `person`: the handle the console writes as (`human:<person>`), in the id grammar. */
test('profile person: optional, an id, anything else refused without echoing it', () => {
  assert.equal(parseProfile({ agents: [], teams: [] }).person, undefined);
  assert.equal(parseProfile({ agents: [], teams: [], person: 'ada' }).person, 'ada');
  for (const person of ['', 'two words', '-flag', 'x'.repeat(129), 7, ['ada']])
    assert.throws(
      () => parseProfile({ agents: [], teams: [], person }),
      (err: unknown) => err instanceof ProfileError && /profile\.person/.test(err.message),
      String(person),
    );
});
