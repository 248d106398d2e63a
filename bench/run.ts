/**
 * `npm run bench` (after the build): runs the benchmark modules one after the
 * other and prints one table. `node dist/bench/run.js cli-start` runs only the
 * named ones; `--json` prints the rows as JSON instead.
 *
 * To add a benchmark: write bench/<name>.ts exporting
 *   export const name = '<name>';
 *   export async function run(): Promise<BenchResult[]>   (see bench/result.ts)
 * and add its file name to MODULES below (or to ON_REQUEST for a long one
 * that runs only when named, such as `soak`). Each module starts and cleans up
 * whatever it needs (daemons, temp homes) itself. Helper scripts that a bench
 * spawns (e.g. a load generator) are not listed: importing them would run them.
 */
import type { BenchResult } from './result.js';

const MODULES: readonly string[] = [
  'cli-start',
  'mcp-throughput',
  'exec-throughput',
  'auth-throughput',
  'validation-flood',
  'host-origin',
  'validate-bytes',
  'memory-search',
  'client-tools-relay',
  'client-tools-stdio',
  'results-mask',
  'store-postgres',
  'console-load',
  'lease-churn',
];
/** Run only when named: `npm run bench -- soak --minutes 2`, `npm run bench -- regression --baseline-commit d25d171`. */
const ON_REQUEST: readonly string[] = [
  'soak',
  'store-locking',
  'audit-overhead',
  'results-gate',
  'telemetry',
  'regression',
  'turns',
];
/** Flags that take a value (the value is not a module name). */
const VALUE_FLAGS: readonly string[] = ['--minutes', '--baseline', '--baseline-commit'];

interface Row extends BenchResult {
  readonly bench: string;
}

function table(rows: readonly Row[]): string {
  const cells = rows.map((r) => [
    r.bench,
    r.metric,
    `${Number.isInteger(r.value) ? r.value : r.value.toFixed(r.unit === 'x' ? 2 : 1)} ${r.unit}`,
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'ok' : 'MISSED',
  ]);
  const head = ['bench', 'metric', 'value', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes('--json');
  const wanted = argv.filter(
    (a, i) => !a.startsWith('--') && !VALUE_FLAGS.includes(argv[i - 1] ?? ''),
  );
  const unknown = wanted.filter((w) => !MODULES.includes(w) && !ON_REQUEST.includes(w));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown benchmark ${unknown.join(', ')} (known: ${[...MODULES, ...ON_REQUEST].join(', ')})\n`,
    );
    return 2;
  }
  const selected =
    wanted.length > 0 ? [...MODULES, ...ON_REQUEST].filter((m) => wanted.includes(m)) : MODULES;
  const rows: Row[] = [];
  let failed = false;
  for (const file of selected) {
    const mod = (await import(`./${file}.js`)) as {
      name?: string;
      run(argv: readonly string[]): Promise<unknown>;
    };
    const bench = mod.name ?? file;
    process.stderr.write(`bench: ${bench}...\n`);
    try {
      const out = await mod.run(argv);
      if (!Array.isArray(out))
        throw new Error(`${bench}: run() must resolve to BenchResult[] (see bench/result.ts)`);
      rows.push(...(out as BenchResult[]).map((r) => ({ bench, ...r })));
    } catch (err) {
      failed = true;
      process.stderr.write(
        `bench: ${bench} failed: ${err instanceof Error ? err.message : String(err)}\n`,
      );
    }
  }
  process.stdout.write(json ? `${JSON.stringify(rows, null, 2)}\n` : `${table(rows)}\n`);
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
