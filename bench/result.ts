/** One row of the benchmark table printed by bench/run.ts. */
export interface BenchResult {
  /** What was measured, e.g. "exec task create --help / node -e 0". */
  readonly metric: string;
  readonly value: number;
  /** "ms", "x" (a ratio), "req/s"... */
  readonly unit: string;
  /** The goal as text, e.g. "<= 1.2x"; absent for informational rows. */
  readonly target?: string;
  readonly pass?: boolean;
}

/** The shape of a bench module listed in bench/run.ts. */
export interface BenchModule {
  readonly name: string;
  run(): Promise<BenchResult[]>;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? NaN)
    : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}
