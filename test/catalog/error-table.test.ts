import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ERROR_CODES, ERROR_TABLE } from '../../catalog/errors.js';

/**
 * A JSON-RPC error number read off the wire names exactly one error code:
 * no two codes share a number, the five codes that are JSON-RPC's own
 * predefined errors carry its numbers, and every other number lies in the
 * range JSON-RPC leaves to implementation-defined server errors.
 */
const PREDEFINED: Readonly<Record<number, string>> = {
  [-32700]: 'invalid_json', // Parse error
  [-32600]: 'invalid_request', // Invalid Request
  [-32601]: 'unsupported_method', // Method not found
  [-32602]: 'invalid_params', // Invalid params
  [-32603]: 'internal', // Internal error
};
const SERVER_MIN = -32099;
const SERVER_MAX = -32000;

test('no two error codes share a JSON-RPC number', () => {
  const byNumber = new Map<number, string[]>();
  for (const code of ERROR_CODES)
    byNumber.set(ERROR_TABLE[code].jsonrpc, [
      ...(byNumber.get(ERROR_TABLE[code].jsonrpc) ?? []),
      code,
    ]);
  const shared = [...byNumber]
    .filter(([, codes]) => codes.length > 1)
    .map(([n, codes]) => `${n}: ${codes.join(', ')}`);
  assert.deepEqual(shared, []);
  assert.equal(byNumber.size, ERROR_CODES.length);
});

test('each JSON-RPC number is a predefined error used for its own meaning, or in the server-error range', () => {
  for (const code of ERROR_CODES) {
    const n = ERROR_TABLE[code].jsonrpc;
    assert.ok(Number.isSafeInteger(n), `${code}: ${n}`);
    if (Object.hasOwn(PREDEFINED, n))
      assert.equal(
        PREDEFINED[n],
        code,
        `${n} is JSON-RPC's own number for ${PREDEFINED[n]}, not ${code}`,
      );
    else
      assert.ok(
        n >= SERVER_MIN && n <= SERVER_MAX,
        `${code}: ${n} is outside ${SERVER_MIN}..${SERVER_MAX}`,
      );
  }
  for (const [n, code] of Object.entries(PREDEFINED))
    assert.equal(ERROR_TABLE[code as keyof typeof ERROR_TABLE].jsonrpc, Number(n), code);
});
