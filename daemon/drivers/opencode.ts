import { join } from 'node:path';
import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';
import { writePrivateFile } from './files.js';
import type { DriverInput, DriverLaunch } from './types.js';

/**
 * OpenCode: an opencode.json named by OPENCODE_CONFIG with a `remote` MCP
 * entry. The Authorization header uses OpenCode's `{file:...}` substitution,
 * so the token is read from the token file when OpenCode loads its config and
 * never copied into this file; `oauth: false` stops OpenCode from starting an
 * OAuth flow for a local bearer-token server.
 */
export function prepareOpencode(input: DriverInput, guidance: string): DriverLaunch {
  const dir = join(input.privateDir, 'opencode');
  const config = join(dir, 'opencode.json');
  const guidanceFile = join(dir, 'agentteam-guidance.md');
  writePrivateFile(guidanceFile, guidance);
  const body = {
    $schema: 'https://opencode.ai/config.json',
    instructions: [guidanceFile],
    mcp: {
      [MCP_SERVER_NAME]: {
        type: 'remote',
        url: input.mcpUrl,
        enabled: true,
        oauth: false,
        headers: { Authorization: `Bearer {file:${input.tokenFile}}` },
      },
    },
  };
  writePrivateFile(config, `${JSON.stringify(body, null, 2)}\n`);
  return { env: { OPENCODE_CONFIG: config, AGENTTEAM_GUIDANCE_FILE: guidanceFile }, args: [], files: { config, guidance: guidanceFile } };
}
