import { join } from 'node:path';
import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';
import { writePrivateFile } from './files.js';
import { renderStdioBridge } from './stdio-bridge.js';
import type { DriverInput, DriverLaunch } from './types.js';

/**
 * OpenCode: an opencode.json named by OPENCODE_CONFIG. OpenCode replaces a
 * `{file:...}` reference with the file's text once, when it loads its config
 * (packages/opencode/src/config/variable.ts), so a header built from it
 * would keep the first token for the whole session. The entry is therefore a
 * `local` (stdio) server: a small bridge that forwards each message to the
 * MCP route and reads the token file for every request. The tool names the
 * model sees are the same as for a remote entry named `agentteam`.
 */
export function prepareOpencode(input: DriverInput, guidance: string): DriverLaunch {
  const dir = join(input.privateDir, 'opencode');
  const config = join(dir, 'opencode.json');
  const bridge = join(dir, 'mcp-bridge.mjs');
  const guidanceFile = join(dir, 'agentteam-guidance.md');
  writePrivateFile(guidanceFile, guidance);
  writePrivateFile(bridge, renderStdioBridge(input.mcpUrl, input.tokenFile));
  const body = {
    $schema: 'https://opencode.ai/config.json',
    instructions: [guidanceFile],
    mcp: {
      [MCP_SERVER_NAME]: { type: 'local', command: [process.execPath, bridge], enabled: true },
    },
  };
  writePrivateFile(config, `${JSON.stringify(body, null, 2)}\n`);
  return {
    env: { OPENCODE_CONFIG: config, AGENTTEAM_GUIDANCE_FILE: guidanceFile },
    args: [],
    files: { config, bridge, guidance: guidanceFile },
  };
}
