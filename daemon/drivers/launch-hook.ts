import type { RuntimeKind } from '../../catalog/runtimes.js';
import type { Authorization } from '../auth/authorization.js';

/** What a runtime driver adds to the launch (written into the private dir by the daemon). */
export interface LaunchAdditions {
  readonly env: Record<string, string>;
  readonly args: string[];
  /** The executable `args` belong to; `run` uses `shimDir` on PATH when it wraps another command. */
  readonly argsFor?: string;
  readonly shimDir?: string;
  /** A variable `run` sets to the current token when it starts the runtime directly. */
  readonly tokenEnv?: string;
  /** The private directory with the `agentteam` launcher; `run` puts it first on PATH. */
  readonly binDir?: string;
}

export type LaunchHook = (
  auth: Authorization,
  runtime: RuntimeKind,
  mcpUrl: string,
  env: Record<string, string>,
  runtimeVersion: string | null,
) => LaunchAdditions;
