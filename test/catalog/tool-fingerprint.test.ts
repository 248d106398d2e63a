import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { canonicalJson, toolFingerprint } from '../../catalog/tool-fingerprint.js';
import { validateStdioTools } from '../../catalog/stdio-tools.js';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

test('fingerprint: SHA-256 of the canonical effective descriptor (keys sorted, arrays in order, no whitespace)', () => {
  const d = {
    name: 'client__lookup_record',
    description: 'Look up a record by identifier.',
    input_schema: { type: 'object', required: ['b', 'a'] },
    timeout_ms: 30000,
  };
  const canon =
    '{"description":"Look up a record by identifier.","input_schema":{"required":["b","a"],"type":"object"},"name":"client__lookup_record","timeout_ms":30000}';
  assert.equal(canonicalJson(d), canon);
  assert.equal(toolFingerprint(d), sha(canon));
  assert.match(toolFingerprint(d), /^[0-9a-f]{64}$/);
});

test('fingerprint vectors: key order does not matter; a changed timeout, schema or array order does', () => {
  const a = {
    name: 'client__x',
    description: 'X.',
    input_schema: { type: 'object', properties: { p: { type: 'string', minLength: 1 } } },
    timeout_ms: 30000,
  };
  const reordered = {
    timeout_ms: 30000,
    input_schema: { properties: { p: { minLength: 1, type: 'string' } }, type: 'object' },
    description: 'X.',
    name: 'client__x',
  };
  assert.equal(toolFingerprint(a), toolFingerprint(reordered));
  assert.notEqual(toolFingerprint(a), toolFingerprint({ ...a, timeout_ms: 30001 }));
  assert.notEqual(toolFingerprint(a), toolFingerprint({ ...a, description: 'X!' }));
  assert.notEqual(
    toolFingerprint({ ...a, input_schema: { type: 'object', required: ['a', 'b'] } }),
    toolFingerprint({ ...a, input_schema: { type: 'object', required: ['b', 'a'] } }),
  );
});

test('fingerprint of a registration without timeout_ms equals the one with the default written out', () => {
  const bare = validateStdioTools([
    { name: 'client__x', description: 'X.', input_schema: { type: 'object' } },
  ]);
  const explicit = validateStdioTools([
    { input_schema: { type: 'object' }, timeout_ms: 30000, description: 'X.', name: 'client__x' },
  ]);
  assert.ok(bare.ok && explicit.ok);
  assert.equal(toolFingerprint({ ...bare.tools[0]! }), toolFingerprint({ ...explicit.tools[0]! }));
  assert.equal(bare.tools[0]!.timeout_ms, 30000);
});
