import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { answerOutcome, clientResultFrame } from '../../daemon/clienttools/result-exit.js';
import { isCredentialName } from '../../daemon/masking/credential-names.js';
import { ExecError } from '../../daemon/errors/exec-error.js';
import { gateWith } from '../../devkit/gate.js';

/**
 * Credential-like fields of an app's answer are redacted whether or not
 * their value is a configured secret, at any depth, in the structured JSON
 * (structuredContent and its text copy), in the blocks' fields and inside
 * text blocks that are JSON; everything else arrives exactly as sent.
 */

const CREDENTIAL_KEYS = [
  'password',
  'Password',
  'PASSWD',
  'new_password',
  'secret',
  'clientSecret',
  'client-secret',
  'token',
  'accessToken',
  'refresh_token',
  'X-Auth-Token',
  'api_key',
  'apiKey',
  'API-KEY',
  'x-api-key',
  'Api Key',
  'authorization',
  'Authorization',
  'cookie',
  'Set-Cookie',
  'private_key',
  'privateKey',
  'sessionId',
  'session_id',
  'credentials',
  'passphrase',
];
const ORDINARY_KEYS = [
  'author',
  'authors',
  'name',
  'id',
  'count',
  'items',
  'monkey',
  'description',
  'keyboard',
  '__proto__',
  'constructor',
  'toString',
  '',
];

const frameOf = (answer: Parameters<typeof answerOutcome>[1], dir: string) => {
  const gate = gateWith({}, dir);
  return JSON.parse(clientResultFrame(answerOutcome(gate, answer), {} as never, gate)) as {
    content: { type: string; text: string }[];
    structuredContent?: unknown;
  };
};

/** A JSON tree of ordinary keys whose leaves may be replaced by a credential-like key holding a unique value. */
const ordinaryKey = fc.oneof(
  fc.constantFrom(...ORDINARY_KEYS),
  fc.string({ maxLength: 12 }).filter((k) => !isCredentialName(k)),
);
const leaf = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.dictionary(ordinaryKey, tie('tree'), { maxKeys: 4, noNullPrototype: true }),
  ),
}));

let planted = 0;
/** Puts a credential key with a fresh value into every object of `v` that `pick` chooses; returns the planted values. */
function plant(v: unknown, keys: readonly string[], values: (string | number)[]): unknown {
  if (Array.isArray(v)) return v.map((x) => plant(x, keys, values));
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    Object.defineProperty(out, k, {
      value: plant(x, keys, values),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  const key = keys[planted % keys.length]!;
  const value = planted % 3 === 0 ? 900_000_000_000 + planted : `cred-${planted}-value`;
  planted++;
  values.push(value);
  // A nested holder too: everything below a credential key is redacted.
  Object.defineProperty(out, key, {
    value: planted % 2 === 0 ? value : { inner: [value] },
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return out;
}

test('property: credential-like keys at any depth never reach the agent with their value; ordinary data round-trips exactly', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-cred-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  fc.assert(
    fc.property(
      fc.dictionary(ordinaryKey, tree, { maxKeys: 5, noNullPrototype: true }),
      fc.subarray(CREDENTIAL_KEYS, { minLength: 1 }),
      fc.boolean(),
      (base, keys, pretty) => {
        // Ordinary data: structuredContent, its text copy and a JSON text block all exactly as sent.
        const plain = frameOf(
          {
            content: [{ type: 'text', text: JSON.stringify(base, null, pretty ? 2 : undefined) }],
            structured: { value: base },
            isError: false,
          },
          dir,
        );
        assert.deepEqual(plain.structuredContent, base);
        assert.equal(
          plain.content[0]!.text,
          JSON.stringify(base, null, pretty ? 2 : undefined),
          'byte for byte',
        );
        assert.deepEqual(JSON.parse(plain.content[1]!.text), base);

        const values: (string | number)[] = [];
        const withCreds = plant(base, keys, values) as Record<string, unknown>;
        const text = JSON.stringify(withCreds, null, pretty ? 2 : undefined);
        const r = frameOf(
          {
            content: [
              { type: 'text', text },
              { type: 'text', text: 'x', _meta: withCreds },
            ],
            structured: { value: withCreds },
            isError: false,
          },
          dir,
        );
        const raw = JSON.stringify(r);
        for (const v of values)
          assert.ok(!raw.includes(String(v)), `${v} reached the agent: ${raw.slice(0, 400)}`);
        // The shape is kept: the same keys in the same places, every credential value "[REDACTED]".
        const expected = redactedCopy(withCreds);
        assert.deepEqual(r.structuredContent, expected);
        assert.deepEqual(JSON.parse(r.content[0]!.text), expected);
        assert.equal(r.content[0]!.text.includes('\n'), pretty, 'the text keeps its layout');
        assert.deepEqual(JSON.parse(r.content[2]!.text), expected);
      },
    ),
    { numRuns: 300 },
  );
});

/** The expected redaction, written independently: strings and numbers at or below a credential key. */
function redactedCopy(v: unknown, under = false): unknown {
  if (typeof v === 'string' || typeof v === 'number') return under ? '[REDACTED]' : v;
  if (Array.isArray(v)) return v.map((x) => redactedCopy(x, under));
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    Object.defineProperty(out, k, {
      value: redactedCopy(x, under || CREDENTIAL_KEYS.includes(k)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

test('a JSON text with a credential key that repeats a key is refused, not passed on or merged', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-cred-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const text = '{"token": "first-value-1", "token": "second-value-2"}';
  assert.throws(
    () => frameOf({ content: [{ type: 'text', text }], isError: false }, dir),
    (err: unknown) =>
      err instanceof ExecError &&
      err.code === 'validation_failed' &&
      /repeats the object key/.test(err.message),
  );
  // Prose that merely mentions a key is text, masked by value only.
  const prose = 'set {"password": "x" in the config';
  assert.equal(
    frameOf({ content: [{ type: 'text', text: prose }], isError: false }, dir).content[0]!.text,
    prose,
  );
});

test('a key named __proto__ survives masking and redaction as an ordinary key', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-cred-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const value = JSON.parse('{"__proto__": {"password": "hunter2hunter2", "n": 1}}') as unknown;
  const gate = gateWith({ SOME_TOKEN: 'unrelated-secret-value' }, dir);
  const r = JSON.parse(
    clientResultFrame(
      answerOutcome(gate, { content: [], structured: { value }, isError: false }),
      {} as never,
      gate,
    ),
  ) as { structuredContent: unknown };
  assert.equal(
    JSON.stringify(r.structuredContent),
    '{"__proto__":{"password":"[REDACTED]","n":1}}',
  );
});
