import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { decodeStrictJson, MAX_JSON_DEPTH } from '../../daemon/http/strict-json.js';
import { ExecError } from '../../daemon/errors/exec-error.js';

const enc = (s: string) => new TextEncoder().encode(s);

const BAD: [string, Uint8Array][] = [
  ['empty', new Uint8Array(0)],
  ['whitespace only', enc('  \n')],
  ['trailing data', enc('{"title":"x"} {}')],
  ['trailing garbage', enc('{"title":"x"}x')],
  ['two values', enc('1 2')],
  ['duplicate key', enc('{"title":"x","title":"y"}')],
  ['duplicate key via escape', enc('{"title":"x","\\u0074itle":"y"}')],
  ['nested duplicate key', enc('{"a":[{"b":1,"b":2}]}')],
  [
    'duplicate key among many',
    enc(`{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k3":0}`),
  ],
  [
    'duplicate escaped key among many',
    enc(`{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"\\u006b39":0}`),
  ],
  ['too deep', enc('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))],
  ['very deep', enc('['.repeat(100_000))],
  ['invalid UTF-8', Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ['overlong UTF-8', Uint8Array.from([0x22, 0xc0, 0xaf, 0x22])],
  ['byte-order mark', Uint8Array.from([0xef, 0xbb, 0xbf, ...enc('{}')])],
  ['single quotes', enc("{'a':1}")],
  ['trailing comma', enc('{"a":1,}')],
  ['NaN', enc('NaN')],
  ['unterminated', enc('{"a":"')],
];

for (const [name, bytes] of BAD) {
  test(`invalid_json: ${name}`, () => {
    assert.throws(
      () => decodeStrictJson(bytes),
      (e: unknown) => e instanceof ExecError && e.code === 'invalid_json',
    );
  });
}

test('accepts one value with surrounding whitespace, same key in sibling objects, deep enough nesting', () => {
  assert.deepEqual(decodeStrictJson(enc(' {"a":{"b":1},"b":[{"b":2},{"b":3}]} \n')), {
    a: { b: 1 },
    b: [{ b: 2 }, { b: 3 }],
  });
  assert.deepEqual(decodeStrictJson(enc('{"k":"a\\"b","j":"\\\\"}')), { k: 'a"b', j: '\\' });
  const depth = MAX_JSON_DEPTH;
  assert.ok(decodeStrictJson(enc('['.repeat(depth) + ']'.repeat(depth))));
  assert.deepEqual(decodeStrictJson(enc('{"t":"é✓😀"}')), { t: 'é✓😀' });
  const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
  assert.deepEqual(decodeStrictJson(enc(JSON.stringify(many))), many);
});
