import type { RuntimeKind } from '../../catalog/runtimes.js';
import type { Authorization } from '../auth/authorization.js';
import type { DriverLaunch } from './types.js';

/** What a runtime driver adds to the launch (written into the private dir by the daemon). */
export type LaunchAdditions = Omit<DriverLaunch, 'files'>;

export type LaunchHook = (
  auth: Authorization,
  runtime: RuntimeKind,
  mcpUrl: string,
  env: Record<string, string>,
  runtimeVersion: string | null,
) => LaunchAdditions;
