import { join } from 'node:path';
import { MCP_TOOLS, type McpToolDescriptor } from '../../catalog/mcp-tools.js';
import { prepareClaude } from './claude.js';
import { prepareCodex, refreshCodex } from './codex.js';
import { prepareOpencode } from './opencode.js';
import { writePrivateFile } from './files.js';
import { renderToolGuidance } from './guidance.js';
import { isRuntimeKind, type RuntimeKind } from './names.js';
import type { DriverInput, DriverLaunch } from './types.js';

export interface PrepareDriverOptions {
  runtime: RuntimeKind;
  mcpUrl: string;
  tokenFile: string;
  privateDir: string;
  inventory?: readonly McpToolDescriptor[];
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Daemon-side entry point used by the lease handler: writes the runtime's MCP
 * client configuration and guidance into the authorization's private
 * directory and returns what `run` must add to the launch. `generic` writes
 * only the guidance.
 */
export function prepareRuntimeDriver(opts: PrepareDriverOptions): DriverLaunch {
  const input: DriverInput = { ...opts, inventory: opts.inventory ?? MCP_TOOLS };
  const guidance = renderToolGuidance(input.runtime, input.inventory);
  switch (input.runtime) {
    case 'claude':
      return prepareClaude(input, guidance);
    case 'codex':
      return prepareCodex(input, guidance);
    case 'opencode':
      return prepareOpencode(input, guidance);
    case 'generic': {
      const file = join(input.privateDir, 'agentteam-guidance.md');
      writePrivateFile(file, guidance);
      return { env: { AGENTTEAM_GUIDANCE_FILE: file }, args: [], files: { guidance: file } };
    }
  }
}

/**
 * The store's `onPublished` hook: after a new token generation is published,
 * configs that hold a copy of the token (only Codex's) are rewritten.
 */
export function driverPublishedHook(auth: { readonly dir: string; readonly tokenFile: string }): void {
  refreshCodex(auth.dir, auth.tokenFile);
}

/**
 * Adapter for the daemon's lease route (`LaunchHook` in daemon/operator/runtimes.ts):
 * prepares the driver inside the authorization's private directory.
 */
export function driverLaunchHook(
  auth: { readonly dir: string; readonly tokenFile: string },
  runtime: string,
  mcpUrl: string,
  env: Record<string, string>,
): { env: Record<string, string>; args: string[] } {
  if (!isRuntimeKind(runtime)) throw new Error(`unknown runtime "${runtime}"`);
  const launch = prepareRuntimeDriver({ runtime, mcpUrl, tokenFile: auth.tokenFile, privateDir: auth.dir, env });
  return { env: launch.env, args: launch.args };
}

/** Same as driverPublishedHook, in the shape of prepareRuntimeDriver's options. */
export function refreshRuntimeDriver(opts: PrepareDriverOptions): void {
  if (opts.runtime === 'codex') refreshCodex(opts.privateDir, opts.tokenFile);
}
