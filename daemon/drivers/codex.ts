import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';
import { writeHeadersHelper, writePrivateFile } from './files.js';
import type { DriverInput, DriverLaunch } from './types.js';

/**
 * The first Codex release known to read `http_headers_helper` on a
 * streamable-HTTP MCP server (a program Codex runs when it connects; its
 * stdout is a JSON object of header names to string values). Checked with
 * `codex mcp get --json` on released builds: 0.147.0 silently drops the key,
 * 0.148.0 keeps it (see specs/mcp.md).
 */
export const CODEX_HEADERS_HELPER_SINCE: readonly [number, number, number] = [0, 148, 0];

/** `codex-cli 0.171.0` -> [0, 171, 0]; null when no version can be read. */
export function parseCodexVersion(text: string | null | undefined): [number, number, number] | null {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(text ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** True unless the version is known and older than the helper; an unreadable version gets the helper. */
export function codexHasHeadersHelper(version: string | null | undefined): boolean {
  const v = parseCodexVersion(version);
  if (!v) return true;
  for (let i = 0; i < 3; i++) if (v[i] !== CODEX_HEADERS_HELPER_SINCE[i]) return v[i]! > CODEX_HEADERS_HELPER_SINCE[i]!;
  return true;
}

/** TOML basic string (JSON string escapes are a subset TOML accepts for these values). */
function tomlString(s: string): string {
  return JSON.stringify(s);
}

function headerLine(tokenFile: string): string {
  const token = readFileSync(tokenFile, 'utf8').trim();
  return `http_headers = { "Authorization" = ${tomlString(`Bearer ${token}`)} }`;
}

function renderConfig(input: DriverInput, helper: string | null): string {
  const seen = input.runtimeVersion ? `Codex reported "${input.runtimeVersion.replace(/[\r\n]/g, ' ')}"` : 'no Codex version could be read';
  const since = CODEX_HEADERS_HELPER_SINCE.join('.');
  return [
    '# Written by agentteam for one runtime authorization; removed with it.',
    helper
      ? `# ${seen}: the Authorization header comes from http_headers_helper, which reads the current token file each time Codex connects.`
      : `# ${seen}, older than ${since}, which has no http_headers_helper: the header below is a copy of the token, rewritten at each rotation; a running Codex keeps the one it read at start.`,
    `[mcp_servers.${MCP_SERVER_NAME}]`,
    `url = ${tomlString(input.mcpUrl)}`,
    helper ? `http_headers_helper = ${tomlString(helper)}` : headerLine(input.tokenFile),
    '',
  ].join('\n');
}

/**
 * Codex: a private CODEX_HOME whose config.toml declares the agentteam
 * streamable-HTTP server. The header comes from a helper script that reads
 * the token file (never from the environment: `bearer_token_env_var` would
 * put the bearer there). Only a Codex too old for the helper gets a fixed
 * `http_headers` copy in this 0600 file, rewritten by `refreshCodex` when a
 * generation is published. The user's Codex login is linked in so the
 * private home still authenticates to the model provider.
 */
export function prepareCodex(input: DriverInput, guidance: string): DriverLaunch {
  const home = join(input.privateDir, 'codex');
  const config = join(home, 'config.toml');
  const helper = codexHasHeadersHelper(input.runtimeVersion) ? join(home, 'mcp-headers.sh') : null;
  if (helper) writeHeadersHelper(helper, input.tokenFile);
  writePrivateFile(config, renderConfig(input, helper));
  const guidanceFile = join(home, 'agentteam-guidance.md');
  writePrivateFile(guidanceFile, guidance);
  const env = input.env ?? process.env;
  const userHome = env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(homedir(), '.codex');
  const auth = join(userHome, 'auth.json');
  if (existsSync(auth) && !existsSync(join(home, 'auth.json'))) symlinkSync(auth, join(home, 'auth.json'));
  const files: Record<string, string> = { config, guidance: guidanceFile };
  if (helper) files.helper = helper;
  return { env: { CODEX_HOME: home, AGENTTEAM_GUIDANCE_FILE: guidanceFile }, args: [], files };
}

/** Rewrites a fixed header after a token rotation; a no-op for a config that uses the helper, or none. */
export function refreshCodex(privateDir: string, tokenFile: string): void {
  const config = join(privateDir, 'codex', 'config.toml');
  if (!existsSync(config)) return;
  const text = readFileSync(config, 'utf8');
  if (!/^http_headers = /m.test(text)) return;
  writePrivateFile(config, text.replace(/^http_headers = .*$/m, () => headerLine(tokenFile)));
}
