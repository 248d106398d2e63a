import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { ERROR_TABLE } from '../../catalog/errors.js';

const SPEC = new URL('../../../specs/exec.md', import.meta.url);

test('the error-code table in specs/exec.md matches catalog/errors.ts', () => {
  const text = readFileSync(SPEC, 'utf8');
  const rows = [...text.matchAll(/^\| `([a-z_]+)` \| (\d+) \| (-?\d+) \| (\d+) \| (.*) \|$/gm)].map(
    (m) => ({
      code: m[1]!,
      http: Number(m[2]),
      jsonrpc: Number(m[3]),
      exit: Number(m[4]),
      summary: m[5]!,
    }),
  );
  const expected = Object.entries(ERROR_TABLE).map(([code, v]) => ({
    code,
    http: v.http,
    jsonrpc: v.jsonrpc,
    exit: v.exit,
    summary: v.summary,
  }));
  assert.deepEqual(rows, expected);
});
