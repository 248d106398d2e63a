import { strict as assert } from 'node:assert';
import { defaultCatalog } from '../catalog/catalog.js';
import { jsonBytes, LIMITS, RESULT_BUDGET_BYTES } from '../catalog/limits.js';
import { worstCaseRows } from '../scripts/gen/limits.js';
import { call, type HttpResult } from './http.js';
import type { startRuntime } from './daemon.js';

/**
 * The most expensive string a (chars, bytes) limit allows: as many copies of
 * `unit` as fit (U+0001 costs 6 bytes as JSON, an emoji 4 in UTF-8), then
 * `suffix` (to keep values distinct), then padding that uses up every byte
 * left. Its JSON form is exactly `bytes` long whenever the characters allow.
 */
export function expensive(
  limit: { chars: number; bytes: number },
  unit = '\u0001',
  suffix = '',
): string {
  const unitBytes = jsonBytes(unit);
  const fixed = jsonBytes(suffix);
  const count = Math.min(
    limit.chars - [...suffix].length,
    Math.floor((limit.bytes - fixed) / unitBytes),
  );
  let s = unit.repeat(Math.max(0, count)) + suffix;
  let chars = [...s].length;
  let bytes = jsonBytes(s);
  // '"' costs 2 bytes, 'a' 1.
  while (chars < limit.chars && bytes + 2 <= limit.bytes) {
    s = `"${s}`;
    chars++;
    bytes += 2;
  }
  while (chars < limit.chars && bytes + 1 <= limit.bytes) {
    s = `a${s}`;
    chars++;
    bytes++;
  }
  return s;
}

export const FLAVORS = { control: '\u0001', emoji: '\u{1F600}', separator: '\u2028' } as const;

/** Each action's and tool's worst-case result in bytes, as specs/limits.md computes it. */
export const WORST = new Map(worstCaseRows(defaultCatalog()).map((r) => [r.name, r.bytes]));
/** The longest agent id. */
export const AGENT = `agent.${'x'.repeat(LIMITS.agentId.chars - 6)}`;

/** A 200 whose body is within its computed worst case and the result budget; its `data`. */
export function ok(r: HttpResult, name: string): any {
  assert.equal(r.status, 200, `${name}: ${r.text.slice(0, 300)}`);
  const bytes = Buffer.byteLength(r.text);
  assert.ok(
    bytes <= (WORST.get(name) ?? 0),
    `${name}: ${bytes} bytes is over its computed worst case ${WORST.get(name)}`,
  );
  assert.ok(bytes <= RESULT_BUDGET_BYTES);
  return r.json.data;
}

/** Lists with limit 1 from the start, following nextCursor: each page fits, and the ids come in the expected order. */
export async function pagedOneByOne(
  rt: Awaited<ReturnType<typeof startRuntime>>,
  domain: string,
  field: string,
  filters: Record<string, unknown>,
  expected: string[],
  idField = 'id',
  stopAfter = Infinity,
): Promise<void> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const data = ok(
      await call(rt, domain, 'list', { ...filters, limit: 1, ...(cursor ? { cursor } : {}) }),
      `${domain} list`,
    );
    assert.equal(data[field].length, 1);
    seen.push(data[field][0][idField]);
    if (!data.hasMore || seen.length >= stopAfter) break;
    cursor = data.nextCursor;
  }
  assert.deepEqual(seen, expected);
}
