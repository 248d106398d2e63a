import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';
import { writePrivateFile } from './files.js';
import type { DriverInput, DriverLaunch } from './types.js';

/** TOML basic string (JSON string escapes are a subset TOML accepts for these values). */
function tomlString(s: string): string {
  return JSON.stringify(s);
}

function headerLine(tokenFile: string): string {
  const token = readFileSync(tokenFile, 'utf8').trim();
  return `http_headers = { "Authorization" = ${tomlString(`Bearer ${token}`)} }`;
}

function renderConfig(input: DriverInput): string {
  return [
    '# Written by agentteam for one runtime authorization; removed with it.',
    `[mcp_servers.${MCP_SERVER_NAME}]`,
    `url = ${tomlString(input.mcpUrl)}`,
    headerLine(input.tokenFile),
    '',
  ].join('\n');
}

/**
 * Codex: a private CODEX_HOME whose config.toml declares the agentteam
 * streamable-HTTP server (`url` plus `http_headers`). Codex has no header
 * command and its `bearer_token_env_var` would put the bearer in the
 * environment, which agentteam never does; the header therefore lives in this
 * 0600 file, rewritten by `refreshCodex` whenever a token generation is
 * published. Codex reads it when it starts, and an earlier generation stays
 * valid until its own expiry. The user's Codex login is linked in so the
 * private home still authenticates to the model provider.
 */
export function prepareCodex(input: DriverInput, guidance: string): DriverLaunch {
  const home = join(input.privateDir, 'codex');
  const config = join(home, 'config.toml');
  writePrivateFile(config, renderConfig(input));
  const guidanceFile = join(home, 'agentteam-guidance.md');
  writePrivateFile(guidanceFile, guidance);
  const env = input.env ?? process.env;
  const userHome = env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(homedir(), '.codex');
  const auth = join(userHome, 'auth.json');
  if (existsSync(auth) && !existsSync(join(home, 'auth.json'))) symlinkSync(auth, join(home, 'auth.json'));
  return { env: { CODEX_HOME: home, AGENTTEAM_GUIDANCE_FILE: guidanceFile }, args: [], files: { config, guidance: guidanceFile } };
}

/** Rewrites the header after a token rotation; a no-op for an authorization without a Codex config. */
export function refreshCodex(privateDir: string, tokenFile: string): void {
  const config = join(privateDir, 'codex', 'config.toml');
  if (!existsSync(config)) return;
  const text = readFileSync(config, 'utf8').replace(/^http_headers = .*$/m, () => headerLine(tokenFile));
  writePrivateFile(config, text);
}
