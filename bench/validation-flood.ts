import { Ajv2020 } from 'ajv/dist/2020.js';
import { taskCreate } from '../catalog/domains/task.js';
import { boundErrorBody } from '../catalog/error-limits.js';
import { loadInputValidator } from '../lib/input-validators.js';
import { median, type BenchResult } from './result.js';

/**
 * The cost of refusing a body of 40 000 unknown fields (the largest flood a
 * 1 MiB body holds is ~150 000), in process, against JSON.parse of the same
 * text measured in the same rounds. "uncapped" is how it was done before the
 * error envelope was bounded: ajv builds one error object per field and
 * every one becomes a detail in the sent envelope. "capped" is the build's
 * validator (lib/validator-cap.ts) and the bounded envelope.
 */
export const name = 'validation-flood';

const FIELDS = 40_000;
const ROUNDS = Number(process.env.BENCH_RUNS ?? 15);

function time(fn: () => unknown): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

export async function run(): Promise<BenchResult[]> {
  const body: Record<string, unknown> = { title: 't' };
  for (let i = 0; i < FIELDS; i++) body[`u${i}`] = i;
  const text = JSON.stringify(body);
  const uncapped = new Ajv2020({ allErrors: true, strict: false }).compile(
    taskCreate.input as object,
  );
  const capped = await loadInputValidator('task', 'create');
  if (!capped) throw new Error('run npm run build first: no generated validator for task create');
  const before = () => {
    uncapped(JSON.parse(text));
    const details = (uncapped.errors ?? []).map((e) => ({
      path: `${e.instancePath}/${String(e.params.additionalProperty)}`,
      message: 'is not a known field',
    }));
    return JSON.stringify({
      ok: false,
      error: { code: 'validation_failed', message: 'm', details },
    }).length;
  };
  const after = () => {
    const r = capped(JSON.parse(text));
    if (r.ok) throw new Error('the flood passed validation');
    return JSON.stringify({
      ok: false,
      error: boundErrorBody({
        code: 'validation_failed',
        message: 'm',
        details: r.details,
        detailsOmitted: r.detailsOmitted,
      }),
    }).length;
  };
  const parse = () => JSON.parse(text);
  for (let i = 0; i < 3; i++) for (const f of [before, after, parse]) f();
  const ratios = { before: [] as number[], after: [] as number[] };
  const ms = { parse: [] as number[], before: [] as number[], after: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    const p = time(parse);
    const b = time(before);
    const a = time(after);
    ms.parse.push(p);
    ms.before.push(b);
    ms.after.push(a);
    ratios.before.push(b / p);
    ratios.after.push(a / p);
  }
  return [
    {
      metric: `JSON.parse of ${FIELDS} unknown fields (${(text.length / 1024).toFixed(0)} KiB)`,
      value: median(ms.parse),
      unit: 'ms',
    },
    {
      metric: 'parse + validate + envelope, uncapped (before)',
      value: median(ms.before),
      unit: 'ms',
    },
    { metric: 'parse + validate + envelope, capped (now)', value: median(ms.after), unit: 'ms' },
    { metric: 'uncapped / JSON.parse', value: median(ratios.before), unit: 'x' },
    { metric: 'capped / JSON.parse', value: median(ratios.after), unit: 'x' },
    { metric: 'envelope bytes uncapped vs capped', value: before() / after(), unit: 'x' },
  ];
}
