import { join } from 'node:path';
import { writePrivateFile } from './files.js';
import { userCodexHome, overrideArgs, type CodexOverrides } from './codex.js';
import { layeredInstructions, readCodexUserConfig } from './codex-user-config.js';
import type { DriverInput, DriverLaunch } from './types.js';

/**
 * What agentteam layers on a `codex app-server` it drives: one feature,
 * `multi_agent_v2_dynamic_tools`, so that a thread the primary spawns
 * (multi-agent v2) gets agentteam's dynamic tools too and the delegated-child
 * gate is what stands between it and an effect; without it a spawned thread
 * has no agentteam tool at all. The tools themselves and the instructions go
 * in `thread/start`, not in the configuration.
 */
export const APP_SERVER_OVERRIDES: CodexOverrides = [
  ['features.multi_agent_v2_dynamic_tools', 'true'],
];

/** Where the session finds the developer instructions the launch prepared. */
export function appServerInstructionsFile(privateDir: string): string {
  return join(privateDir, 'codex-app-server', 'developer-instructions.md');
}

/**
 * Codex app-server: the daemon itself talks to `codex app-server` (see
 * daemon/drivers/app-server/), so nothing is configured for an MCP client.
 * The user's Codex home is read as for `codex`: a user's own `agentteam` MCP
 * server is a conflict (the model would see two sets of agentteam tools),
 * and their top-level developer_instructions come first in the instructions
 * the primary thread starts with.
 */
export function prepareCodexAppServer(input: DriverInput, guidance: string): DriverLaunch {
  const user = readCodexUserConfig(userCodexHome(input.env ?? {}));
  const dir = join(input.privateDir, 'codex-app-server');
  const guidanceFile = join(dir, 'guidance.md');
  writePrivateFile(guidanceFile, guidance);
  const instructions = appServerInstructionsFile(input.privateDir);
  writePrivateFile(instructions, layeredInstructions(user, guidance));
  return {
    env: { AGENTTEAM_GUIDANCE_FILE: guidanceFile },
    args: overrideArgs(APP_SERVER_OVERRIDES),
    files: { guidance: guidanceFile, instructions },
  };
}
