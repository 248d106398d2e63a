import { isAbsolute, relative, resolve } from 'node:path';
import { LIMITS } from '../../catalog/limits.js';
import type { AgentLaunch } from './types.js';

/** Why a profile's launch block is refused; parse.ts turns it into a ProfileError. */
export class LaunchConfigError extends Error {
  override name = 'LaunchConfigError';
}

/** A turn's deadline when the profile gives none: 20 minutes. */
const DEFAULT_TURN_DEADLINE_S = 20 * 60;
const MAX_TURN_DEADLINE_S = 24 * 60 * 60;
const MAX_RUNNING = 16;
/** argv entries of a declared command or extra arguments, and the bytes of each. */
const MAX_ARGS = 64;
const MAX_ARG_BYTES = 4096;

const DEFAULT_LAUNCH: AgentLaunch = {
  command: null,
  binary: null,
  args: [],
  workdir: null,
  deadlineSeconds: DEFAULT_TURN_DEADLINE_S,
  maxRunning: 1,
  queueLimit: LIMITS.turnQueue,
};

function strings(v: unknown, where: string, min: number): string[] {
  if (!Array.isArray(v) || v.length < min || v.length > MAX_ARGS)
    throw new LaunchConfigError(`${where} must be an array of ${min}..${MAX_ARGS} strings`);
  return v.map((s, i) => {
    if (typeof s !== 'string' || Buffer.byteLength(s) > MAX_ARG_BYTES || s.includes('\0'))
      throw new LaunchConfigError(
        `${where}[${i}] must be a string of at most ${MAX_ARG_BYTES} bytes without NUL`,
      );
    return s;
  });
}

function int(v: unknown, where: string, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || (v as number) < min || (v as number) > max)
    throw new LaunchConfigError(`${where} must be an integer from ${min} to ${max}`);
  return v as number;
}

/** Whether `dir` is one of `allowed` or inside one of them. */
function withinAllowed(dir: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => {
    const rel = relative(resolve(a), resolve(dir));
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

/**
 * An agent's `launch` block: what the daemon needs to start its runtime for
 * a turn. `command` declares the whole argv of a command runtime; `binary`
 * is the runtime's executable when it is not on PATH; `args` are added to
 * the runtime's own; `workdir` must lie within the agent's allowed paths.
 */
export function parseLaunch(
  v: unknown,
  where: string,
  allowedPaths: readonly string[],
): AgentLaunch {
  if (v === undefined || v === null) return DEFAULT_LAUNCH;
  if (typeof v !== 'object' || Array.isArray(v))
    throw new LaunchConfigError(`${where} must be an object`);
  const o = v as Record<string, unknown>;
  const known = [
    'command',
    'binary',
    'args',
    'workdir',
    'deadlineSeconds',
    'maxRunning',
    'queueLimit',
  ];
  for (const k of Object.keys(o))
    if (!known.includes(k)) throw new LaunchConfigError(`${where}.${k} is not a launch setting`);
  const binary = o.binary === undefined ? null : strings([o.binary], `${where}.binary`, 1)[0]!;
  if (binary !== null && !isAbsolute(binary))
    throw new LaunchConfigError(`${where}.binary must be an absolute path`);
  let workdir: string | null = null;
  if (o.workdir !== undefined) {
    workdir = strings([o.workdir], `${where}.workdir`, 1)[0]!;
    if (!isAbsolute(workdir)) throw new LaunchConfigError(`${where}.workdir must be absolute`);
    if (!withinAllowed(workdir, allowedPaths))
      throw new LaunchConfigError(`${where}.workdir must lie within filesystem.allowedPaths`);
  }
  return {
    command: o.command === undefined ? null : strings(o.command, `${where}.command`, 1),
    binary,
    args: o.args === undefined ? [] : strings(o.args, `${where}.args`, 0),
    workdir,
    deadlineSeconds: int(
      o.deadlineSeconds,
      `${where}.deadlineSeconds`,
      1,
      MAX_TURN_DEADLINE_S,
      DEFAULT_TURN_DEADLINE_S,
    ),
    maxRunning: int(o.maxRunning, `${where}.maxRunning`, 1, MAX_RUNNING, 1),
    queueLimit: int(o.queueLimit, `${where}.queueLimit`, 1, LIMITS.turnQueue, LIMITS.turnQueue),
  };
}
