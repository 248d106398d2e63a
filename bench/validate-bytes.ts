/**
 * What the byte-limit keyword costs: the task create validator as generated
 * (maxLength and x-maxJsonBytes) against the same schema without
 * x-maxJsonBytes (maxLength only), both compiled by the build's ajv
 * configuration, in the same run. Ratios per input shape.
 */
import { defaultCatalog } from '../catalog/catalog.js';
import { JSON_BYTES_KEYWORD, LIMITS } from '../catalog/limits.js';
import { createValidator } from '../lib/validator.js';
import { median, type BenchResult } from './result.js';

export const name = 'validate-bytes';

function strip(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strip);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => k !== JSON_BYTES_KEYWORD)
      .map(([k, v]) => [k, strip(v)]),
  );
}

function perCallMicros(fn: () => unknown, calls: number): number {
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn();
    rounds.push(Number(process.hrtime.bigint() - t) / 1000 / calls);
  }
  return median(rounds);
}

export async function run(): Promise<BenchResult[]> {
  const schema = defaultCatalog().get('task', 'create')!.descriptor.input;
  const withBytes = createValidator().compile(schema as object);
  const without = createValidator().compile(strip(schema) as object);
  const max = LIMITS.taskDescription.chars;
  const inputs: [string, Record<string, unknown>][] = [
    ['short task', { title: 'Write the release notes', description: 'Two paragraphs.' }],
    // The longest description the schema publishes (LIMITS.taskDescription.chars code points), in three kinds of text.
    [`${max} ASCII characters`, { title: 't', description: 'a'.repeat(max) }],
    [`${max} emoji`, { title: 't', description: '\u{1F600}'.repeat(max) }],
    [
      `${max - (max % 9)} characters with newlines and quotes`,
      { title: 't', description: 'a "line"\n'.repeat(Math.floor(max / 9)) },
    ],
  ];
  const rows: BenchResult[] = [];
  for (const [label, input] of inputs) {
    if (!withBytes(input) || !without(input))
      throw new Error(`${label}: the bench input must be valid`);
    const calls = JSON.stringify(input).length > 1000 ? 2_000 : 200_000;
    const base = perCallMicros(() => without(input), calls);
    const bytes = perCallMicros(() => withBytes(input), calls);
    rows.push({ metric: `${label}: validate with byte limit`, value: bytes, unit: 'us' });
    rows.push({ metric: `${label}: / without byte limit`, value: bytes / base, unit: 'x' });
  }
  return rows;
}
