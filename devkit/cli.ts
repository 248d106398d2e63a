import { spawn, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built CLI (the package's binary, the CommonJS bundle) and the repository root, seen from dist/test. */
export const BIN = fileURLToPath(new URL('../cli/agentteam.cjs', import.meta.url));
/** The ESM entry kept for older callers; it loads the same bundle. */
export const ESM_BIN = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The test runner's environment without any AGENTTEAM_* variable, plus `extra`. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^agentteam_/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** Runs the built CLI to completion, feeding `stdin` when given; `spawn` adds child_process options. */
export function runCli(
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; stdin?: string; bin?: string; spawn?: SpawnOptions } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? BIN, ...args], {
      env: opts.env ?? cleanEnv(),
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...opts.spawn,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
  });
}

/** Runs `jobs` with at most `limit` at a time (the CI box has two cores). */
export async function pool<T>(jobs: readonly (() => Promise<T>)[], limit = 4): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return out;
}

export const packageVersion = (): string =>
  (
    JSON.parse(readFileSync(new URL('package.json', `file://${ROOT}`), 'utf8')) as {
      version: string;
    }
  ).version;
