import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { caVariants } from './ca-env.js';
import { median, type BenchResult } from './result.js';

/**
 * Whole-process time of the CLI's no-daemon paths against an empty node
 * process, measured in the same run. The commands run in rounds, one of each
 * per round and per environment (see bench/ca-env.ts: as given, and without
 * NODE_EXTRA_CA_CERTS when it is set), and each ratio is the median over
 * rounds of (command / node -e 0 in the same round and environment): a paired
 * measurement, so load from other work on the machine, which drifts over
 * seconds, affects both sides of each pair alike. Target: <= 1.2x of
 * `node -e 0`.
 */
export const name = 'cli-start';

/** The package's binary (package.json "bin"): the CommonJS bundle of the exec path. */
const BIN = fileURLToPath(new URL('../cli/agentteam.cjs', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 41);
const WARMUP = 3;
const TARGET = 1.2;

const COMMANDS = {
  baseline: ['-e', '0'],
  help: [BIN, 'exec', 'task', 'create', '--help'],
  validation: [BIN, 'exec', 'task', 'create', '{"title":""}'],
  version: [BIN, '--version'],
  programHelp: [BIN, '--help'],
} as const;

type Key = keyof typeof COMMANDS;

const LABELS: Record<Exclude<Key, 'baseline'>, string> = {
  help: 'exec task create --help',
  validation: 'local validation failure',
  version: '--version',
  programHelp: '--help (loads commander, as every command but exec does)',
};

function once(args: readonly string[], env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  // Output goes to pipes, as when a runtime captures a tool call.
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  return ms;
}

export async function run(): Promise<BenchResult[]> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^agentteam_/i.test(k)) clean[k] = v;
  const variants = caVariants(clean);
  const keys = Object.keys(COMMANDS) as Key[];
  const times = variants.map(
    () => Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<Key, number[]>,
  );
  for (let i = 0; i < WARMUP + RUNS; i++) {
    variants.forEach((v, vi) => {
      for (const k of keys) {
        const ms = once(COMMANDS[k], v.env);
        if (i >= WARMUP) times[vi]![k].push(ms);
      }
    });
  }
  const rows: BenchResult[] = [];
  variants.forEach((v, vi) => {
    const t = times[vi]!;
    const ratio = (k: Key) => median(t[k].map((x, i) => x / (t.baseline[i] ?? NaN)));
    rows.push({
      metric: `[${v.label}] node -e 0 (median of ${RUNS})`,
      value: median(t.baseline),
      unit: 'ms',
    });
    for (const k of ['help', 'validation', 'version', 'programHelp'] as const) {
      rows.push({
        metric: `[${v.label}] agentteam ${k === 'validation' ? 'exec task create \'{"title":""}\' (exit 2)' : LABELS[k]}`,
        value: median(t[k]),
        unit: 'ms',
      });
    }
    for (const k of ['help', 'validation'] as const) {
      const value = ratio(k);
      rows.push({
        metric: `[${v.label}] ${LABELS[k]} / node -e 0`,
        value,
        unit: 'x',
        target: `<= ${TARGET}x`,
        pass: value <= TARGET,
      });
    }
    for (const k of ['version', 'programHelp'] as const)
      rows.push({ metric: `[${v.label}] ${LABELS[k]} / node -e 0`, value: ratio(k), unit: 'x' });
  });
  return rows;
}
