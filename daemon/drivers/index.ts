import { join } from 'node:path';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import { prepareClaude } from './claude.js';
import { prepareCodex } from './codex.js';
import { prepareCodexAppServer } from './codex-app-server.js';
import { prepareOpencode } from './opencode.js';
import { writePrivateFile } from './files.js';
import { renderToolGuidance } from './guidance.js';
import type { RuntimeKind } from './names.js';
import { binDirOf, writeAgentteamLauncher, type AgentteamBinary } from './binary.js';
import type { DriverInput, DriverLaunch } from './types.js';

interface PrepareDriverOptions {
  runtime: RuntimeKind;
  mcpUrl: string;
  tokenFile: string;
  privateDir: string;
  inventory?: readonly McpToolDescriptor[];
  env?: Readonly<Record<string, string | undefined>>;
  runtimeVersion?: string | null;
  /** The canonical agentteam command (selectAgentteamBinary at daemon start). */
  agentteam: AgentteamBinary;
  /** The agent's memory folder, absolute (the guidance names it). */
  memoryDir?: string;
}

/**
 * Daemon-side entry point used by the lease handler: writes the runtime's MCP
 * client configuration and guidance into the authorization's private
 * directory and returns what `run` must add to the launch. `generic` writes
 * only the guidance.
 */
export function prepareRuntimeDriver(opts: PrepareDriverOptions): DriverLaunch {
  const input: DriverInput = { ...opts, inventory: opts.inventory ?? MCP_TOOLS };
  // Every runtime, whatever its driver, gets `agentteam` first on its PATH and named in its guidance.
  const launcher = writeAgentteamLauncher(input.privateDir, opts.agentteam);
  const guidance = renderToolGuidance(input.runtime, input.inventory, launcher, opts.memoryDir);
  const launch = prepareFor(input, guidance);
  return {
    ...launch,
    binDir: binDirOf(input.privateDir),
    files: { ...launch.files, agentteam: launcher },
  };
}

function prepareFor(input: DriverInput, guidance: string): DriverLaunch {
  switch (input.runtime) {
    case 'claude':
      return prepareClaude(input, guidance);
    case 'codex':
      return prepareCodex(input, guidance);
    case 'codex-app-server':
      return prepareCodexAppServer(input, guidance);
    case 'opencode':
      return prepareOpencode(input, guidance);
    case 'generic': {
      const file = join(input.privateDir, 'agentteam-guidance.md');
      writePrivateFile(file, guidance);
      return { env: { AGENTTEAM_GUIDANCE_FILE: file }, args: [], files: { guidance: file } };
    }
  }
}
