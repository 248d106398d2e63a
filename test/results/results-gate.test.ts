import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ResultGate } from '../../daemon/results/gate.js';
import { SecretSet, buildMatcher, MIN_SECRET_BYTES } from '../../daemon/masking/secrets.js';
import { SpillStore } from '../../daemon/results/spill.js';
import { fixedSource } from '../../daemon/masking/sources.js';
import type { BoundaryPolicy } from '../../daemon/results/boundary.js';
import type { Masked } from '../../daemon/masking/masked.js';

const POLICY: BoundaryPolicy = {
  domain: 'task',
  action: 'get',
  risk: 'read',
  result: { hint: 'smaller', next: { action: 'task get', input: {} } },
  receipt: null as never,
};

function gateWith(
  t: import('node:test').TestContext,
  pairs: Record<string, string>,
  clock = { now: () => Date.now() },
) {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-gate-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const secrets = new SecretSet();
  for (const [k, v] of Object.entries(pairs)) secrets.add(fixedSource(k, v));
  return {
    gate: new ResultGate(
      secrets,
      new SpillStore({ dir: join(dir, 'spill'), clock: clock as never }),
    ),
    dir,
  };
}

test('structured JSON: every string is masked, keys included, and the envelope stays valid JSON', (t) => {
  const { gate } = gateWith(t, { API_TOKEN: 'correct-horse-battery', QUOTED: 'a"b\\c-long-value' });
  const out = gate.json(
    POLICY,
    {},
    {
      'correct-horse-battery': 1,
      nested: [{ v: 'x correct-horse-battery y' }, 'a"b\\c-long-value'],
    },
  );
  assert.ok(out.ok);
  const doc = JSON.parse(out.body);
  assert.deepEqual(doc, {
    ok: true,
    data: { '[API_TOKEN]': 1, nested: [{ v: 'x [API_TOKEN] y' }, '[QUOTED]'] },
  });
});

test('a masking that would merge two keys is an error, never a silent drop', (t) => {
  const { gate } = gateWith(t, { API_TOKEN: 'correct-horse-battery' });
  const out = gate.json(POLICY, {}, { 'correct-horse-battery': 1, '[API_TOKEN]': 2 });
  assert.equal(out.ok, false);
  assert.equal(!out.ok && out.error.code, 'internal');
  // A secret that spans the structure (two strings) cannot be masked in place either.
  const { gate: g2 } = gateWith(t, { WEIRD_SECRET: 'abc","def' });
  const spans = g2.json(POLICY, {}, ['xxabc', 'defyy']);
  assert.equal(spans.ok, false);
});

test(`values shorter than ${MIN_SECRET_BYTES} bytes are not masked; the bound is in UTF-8 bytes`, () => {
  const m = buildMatcher([
    ['A_KEY', '1234567'],
    ['B_KEY', 'ééééé'],
  ]);
  assert.equal(m.size, 1); // 'ééééé' is 10 bytes
  assert.equal(m.replace('1234567 ééééé'), '1234567 [B_KEY]');
});

test('property: masked text never contains a secret, whatever surrounds it', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 8, maxLength: 40 }),
      fc.string(),
      fc.string(),
      (secret, a, b) => {
        const m = buildMatcher([['S_TOKEN', secret]]);
        return (
          !m.replace(`${a}${secret}${b}${secret}`).includes(secret) || `[S_TOKEN]`.includes(secret)
        );
      },
    ),
  );
});

test('text over its limit keeps head and tail within the limit and spills the whole, 0600, named in the note', (t) => {
  const { gate } = gateWith(t, { SERVICE_TOKEN: 'correct-horse-battery' });
  const whole = `${'H'.repeat(1000)}${'é'.repeat(5000)} correct-horse-battery ${'T'.repeat(1000)}`;
  const out = gate.text(whole, 2048);
  assert.ok(Buffer.byteLength(out.text) <= 2048, String(Buffer.byteLength(out.text)));
  assert.ok(out.text.startsWith('HHHH'));
  assert.ok(out.text.endsWith('TTTT'));
  assert.ok(out.spill);
  assert.ok(out.text.includes(out.spill.path));
  const spilled = readFileSync(out.spill.path, 'utf8');
  assert.equal(spilled, whole.replace('correct-horse-battery', '[SERVICE_TOKEN]'));
  assert.equal(statSync(out.spill.path).mode & 0o777, 0o600);
  // At the limit: unchanged, no spill.
  const exact = 'x'.repeat(2048);
  assert.deepEqual(gate.text(exact, 2048), { text: exact });
  assert.ok(gate.text(`${exact}y`, 2048).spill);
});

test('spill files are pruned by age and by total size, never the one just written', (t) => {
  let now = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-spill-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = new SpillStore({
    dir,
    clock: { now: () => now } as never,
    maxAgeMs: 60_000,
    maxTotalBytes: 3000,
  });
  const old = join(dir, 'old.txt');
  writeFileSync(old, 'x');
  utimesSync(old, new Date(now - 120_000), new Date(now - 120_000));
  const a = store.write('a'.repeat(1000) as Masked);
  assert.ok(!readdirSync(dir).includes('old.txt'));
  now += 1000;
  const b = store.write('b'.repeat(1000) as Masked);
  const c = store.write('c'.repeat(1500) as Masked);
  const left = readdirSync(dir);
  assert.ok(left.includes(`${c.id}.txt`));
  assert.ok(!left.includes(`${a.id}.txt`), 'oldest removed over the total');
  assert.ok(left.includes(`${b.id}.txt`));
});

test('the matcher is rebuilt only when a source version changes', () => {
  let version = 0;
  let value = 'first-secret-value';
  const set = new SecretSet();
  set.add({ version: () => version, entries: () => [['X_TOKEN', value]] });
  const m1 = set.matcher();
  assert.equal(set.matcher(), m1);
  value = 'second-secret-value';
  assert.equal(set.matcher().replace(value), value);
  version++;
  assert.equal(set.matcher().replace(value), '[X_TOKEN]');
});
