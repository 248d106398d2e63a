import { join } from 'node:path';
import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';
import { binDirOf } from './binary.js';
import { renderPathShim, shQuote, writeHeadersHelper, writePrivateFile } from './files.js';
import type { DriverInput, DriverLaunch } from './types.js';

/**
 * Claude Code: a `--mcp-config` file with one HTTP server whose
 * `headersHelper` is a shell command Claude Code runs at each connection and
 * whose stdout is a JSON object of headers. The helper reads the token file
 * every time, so a rotated token is picked up without restarting Claude.
 * A `--settings` file allows agentteam's tools and hooks Claude Code's
 * permission prompt (layered on the user's settings, never written into
 * them): the `PermissionRequest` hook runs this runtime's own `agentteam
 * approval hook`, which files the request in the approval inbox and answers
 * with the decision.
 *
 * The options belong to the `claude` executable. When `run` wraps another
 * command (`sh -c '...'`), they cannot be put after it; `run` then puts
 * `shimDir` first on PATH, where a `claude` shim adds the same options to
 * whichever `claude` the wrapped command starts.
 */
export function prepareClaude(input: DriverInput, guidance: string): DriverLaunch {
  const dir = join(input.privateDir, 'claude');
  const helper = join(dir, 'mcp-headers.sh');
  const config = join(dir, 'mcp-config.json');
  writeHeadersHelper(helper, input.tokenFile);
  const body = {
    mcpServers: {
      [MCP_SERVER_NAME]: { type: 'http', url: input.mcpUrl, headersHelper: shQuote(helper) },
    },
  };
  writePrivateFile(config, `${JSON.stringify(body, null, 2)}\n`);
  const guidanceFile = join(dir, 'guidance.md');
  writePrivateFile(guidanceFile, guidance);
  // Loaded on top of the user's own settings, which stay untouched: agentteam's tools need no prompt.
  const settings = join(dir, 'settings.json');
  const hookCommand = `${shQuote(join(binDirOf(input.privateDir), 'agentteam'))} approval hook`;
  writePrivateFile(settings, `${JSON.stringify(claudeSettings(hookCommand), null, 2)}\n`);
  const shimDir = join(dir, 'bin');
  const shim = join(shimDir, 'claude');
  writePrivateFile(shim, renderShim(shimDir, config, guidanceFile, settings), 0o700);
  return {
    env: { AGENTTEAM_GUIDANCE_FILE: guidanceFile },
    args: ['--mcp-config', config, '--append-system-prompt', guidance, '--settings', settings],
    argsFor: 'claude',
    shimDir,
    files: { config, helper, guidance: guidanceFile, settings, shim },
  };
}

/**
 * Claude Code's permission rule for every tool of one MCP server: agentteam's
 * tools run without asking, as Codex's driver approves them, so a turn in
 * print mode (where nobody answers a prompt) can answer. The daemon's own
 * approvals still apply to the tools that need them.
 */
const ALLOW_AGENTTEAM = [`mcp__${MCP_SERVER_NAME}`];

/**
 * How long Claude Code lets the permission hook run, in seconds. The hook
 * waits for a person; the inbox's own deadline (10 minutes by default, per
 * agent) ends the wait with a denial long before this, so Claude Code's
 * timeout (which would count as no answer) is only the last resort.
 */
const HOOK_TIMEOUT_S = 86_400;

/**
 * The driver's settings: agentteam's tools allowed; every permission prompt
 * (the `PermissionRequest` event fires only where Claude Code would ask, in
 * print mode too) handed to the hook command.
 */
function claudeSettings(hookCommand: string): Record<string, unknown> {
  return {
    permissions: { allow: ALLOW_AGENTTEAM },
    hooks: {
      PermissionRequest: [
        {
          matcher: '*',
          hooks: [{ type: 'command', command: hookCommand, timeout: HOOK_TIMEOUT_S }],
        },
      ],
    },
  };
}

/** The PATH shim: drops its own directory from PATH, then runs the real claude with the options. */
function renderShim(
  shimDir: string,
  config: string,
  guidanceFile: string,
  settings: string,
): string {
  return renderPathShim(shimDir, 'starts the real claude with the agentteam MCP configuration.', [
    `exec claude --mcp-config ${shQuote(config)} --append-system-prompt "$(cat ${shQuote(guidanceFile)})" --settings ${shQuote(settings)} "$@"`,
  ]);
}
