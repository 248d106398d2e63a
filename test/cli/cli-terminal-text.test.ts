import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { visible, visibleBlock } from '../../cli/terminal-text.js';
import { escapeJsonText, jsonText } from '../../cli/json-text.js';
import { cleanEnv, runCli } from '../../devkit/cli.js';

/**
 * The two output neutralisers, as properties over arbitrary text rich in
 * the characters that matter: C0, DEL, C1, the separators and the bidi
 * controls mixed with ordinary and astral characters.
 */

/** Everything a terminal acts on, or that reorders or breaks what a person reads. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const DANGEROUS = [
  '\x1b',
  '\x07',
  '\n',
  '\r',
  '\t',
  '\x00',
  '\x7f',
  '\u0080',
  '\u009b',
  '\u009d',
  '\u009c',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u2066',
  '\u2069',
  '\\',
];
const char = fc.oneof(
  fc.constantFrom(...DANGEROUS),
  fc.integer({ min: 0, max: 0x2100 }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: 'grapheme', maxLength: 2 }),
);
const text = fc.array(char, { maxLength: 60 }).map((cs) => cs.join(''));

test('visible(): no control character survives; text without one is unchanged; it works character by character', () => {
  fc.assert(
    fc.property(text, text, (s, t) => {
      const out = visible(s);
      assert.equal(CONTROL.test(out), false, JSON.stringify(out));
      const plain = s.replace(new RegExp(CONTROL.source, 'g'), '');
      assert.equal(visible(plain), plain);
      assert.equal(visible(s + t), out + visible(t));
    }),
    { numRuns: 500 },
  );
});

test('visible() shows each control as a readable escape', () => {
  assert.equal(visible('a\x1b]52;c;SGk=\x07b'), 'a\\x1b]52;c;SGk=\\x07b');
  assert.equal(visible('\u009b2K\u009d0;t\u009c'), '\\u009b2K\\u009d0;t\\u009c');
  assert.equal(visible('one\ntwo\r\tthree\x7f'), 'one\\ntwo\\r\\tthree\\x7f');
  assert.equal(visible('abc\u202edef\u2066'), 'abc\\u202edef\\u2066');
  assert.equal(visible('plain ümlaut 😀'), 'plain ümlaut 😀');
});

test('visibleBlock(): only line feeds and tabs are kept, and every line after the first starts with the indent', () => {
  fc.assert(
    fc.property(text, fc.constantFrom('', '  ', '[thr_1] '), (s, indent) => {
      const out = visibleBlock(s, indent);
      assert.equal(
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(out),
        false,
        JSON.stringify(out),
      );
      const lines = out.split('\n');
      assert.equal(lines.length, s.replace(/\r\n/g, '\n').split('\n').length);
      for (const l of lines.slice(1)) assert.ok(l.startsWith(indent), JSON.stringify(l));
    }),
    { numRuns: 500 },
  );
});

test('jsonText(): parses back to exactly the value, with no raw DEL, C1, separator or bidi control', () => {
  const value = fc
    .jsonValue()
    .chain((v) =>
      fc
        .record({ v: fc.constant(v), s: text, k: text })
        .map((r) => ({ [r.k]: r.s, v: r.v, list: [r.s, r.k] })),
    );
  fc.assert(
    fc.property(value, (v) => {
      const out = jsonText(v);
      assert.equal(CONTROL.test(out), false, out);
      assert.deepEqual(JSON.parse(out), JSON.parse(JSON.stringify(v)));
    }),
    { numRuns: 500 },
  );
});

test('escapeJsonText(): on JSON text the parsed value is the same; a line that is not JSON is made inert too', () => {
  fc.assert(
    fc.property(text, (s) => {
      const json = JSON.stringify({ line: s });
      assert.deepEqual(JSON.parse(escapeJsonText(json)), { line: s });
      assert.equal(CONTROL.test(escapeJsonText(s)), false);
    }),
    { numRuns: 500 },
  );
});

test("a command line with control sequences in it is refused inert: commander's message and the envelope", async () => {
  const r = await runCli(['audit', '--since', '1h\x1b]0;owned\x07\u009b2K', '--nosuch\x1b[2K'], {
    env: cleanEnv(),
  });
  assert.equal(r.code, 2);
  assert.equal(CONTROL.test(r.stderr.replace(/\n/g, '')), false, JSON.stringify(r.stderr));
  assert.equal(CONTROL.test(r.stdout.replace(/\n$/, '')), false, JSON.stringify(r.stdout));
  assert.match(r.stderr, /--nosuch\\x1b\[2K/);
  assert.equal(JSON.parse(r.stdout).error.code, 'usage');
});
