import { join } from 'node:path';
import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';
import { shQuote, writePrivateFile } from './files.js';
import type { DriverInput, DriverLaunch } from './types.js';

/**
 * Claude Code: a `--mcp-config` file with one HTTP server whose
 * `headersHelper` is a shell command Claude Code runs at each connection and
 * whose stdout is a JSON object of headers. The helper reads the token file
 * every time, so a rotated token is picked up without restarting Claude.
 */
export function prepareClaude(input: DriverInput, guidance: string): DriverLaunch {
  const dir = join(input.privateDir, 'claude');
  const helper = join(dir, 'mcp-headers.sh');
  const config = join(dir, 'mcp-config.json');
  writePrivateFile(
    helper,
    [
      '#!/bin/sh',
      '# Prints the Authorization header for the agentteam MCP server from the current token file.',
      `token=$(cat ${shQuote(input.tokenFile)}) || exit 1`,
      '[ -n "$token" ] || exit 1',
      'printf \'{"Authorization":"Bearer %s"}\\n\' "$token"',
      '',
    ].join('\n'),
    0o700,
  );
  const body = { mcpServers: { [MCP_SERVER_NAME]: { type: 'http', url: input.mcpUrl, headersHelper: shQuote(helper) } } };
  writePrivateFile(config, `${JSON.stringify(body, null, 2)}\n`);
  const guidanceFile = join(dir, 'guidance.md');
  writePrivateFile(guidanceFile, guidance);
  return {
    env: { AGENTTEAM_GUIDANCE_FILE: guidanceFile },
    args: ['--mcp-config', config, '--append-system-prompt', guidance],
    files: { config, helper, guidance: guidanceFile },
  };
}
