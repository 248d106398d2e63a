import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, type BenchResult } from './result.js';

/**
 * Whole-process time of the CLI's no-daemon paths against an empty node
 * process, measured in the same run. The commands run in rounds, one of each
 * per round, and each ratio is the median over rounds of (command / node -e 0
 * in the same round): a paired measurement, so load from other work on the
 * machine, which drifts over seconds, affects both sides of each pair alike.
 * Target: <= 1.2x of `node -e 0`.
 */
export const name = 'cli-start';

const BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 41);
const WARMUP = 3;
const TARGET = 1.2;

const COMMANDS = {
  baseline: ['-e', '0'],
  help: [BIN, 'exec', 'task', 'create', '--help'],
  validation: [BIN, 'exec', 'task', 'create', '{"title":""}'],
  version: [BIN, '--version'],
} as const;

type Key = keyof typeof COMMANDS;

function once(args: readonly string[]): number {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^agentteam_/i.test(k)) env[k] = v;
  const start = process.hrtime.bigint();
  // Output goes to pipes, as when a runtime captures a tool call.
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  return ms;
}

export async function run(): Promise<BenchResult[]> {
  const keys = Object.keys(COMMANDS) as Key[];
  const times = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<Key, number[]>;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const k of keys) {
      const ms = once(COMMANDS[k]);
      if (i >= WARMUP) times[k].push(ms);
    }
  }
  const m = Object.fromEntries(keys.map((k) => [k, median(times[k])])) as Record<Key, number>;
  const ratio = (k: Key): BenchResult => {
    const value = median(times[k].map((t, i) => t / (times.baseline[i] ?? NaN)));
    return { metric: `${k === 'help' ? 'exec task create --help' : 'local validation failure'} / node -e 0`, value, unit: 'x', target: `<= ${TARGET}x`, pass: value <= TARGET };
  };
  return [
    { metric: `node -e 0 (median of ${RUNS})`, value: m.baseline, unit: 'ms' },
    { metric: 'agentteam exec task create --help', value: m.help, unit: 'ms' },
    { metric: 'agentteam exec task create \'{"title":""}\' (exit 2)', value: m.validation, unit: 'ms' },
    { metric: 'agentteam --version (loads commander)', value: m.version, unit: 'ms' },
    ratio('help'),
    ratio('validation'),
  ];
}
