import { homedir } from 'node:os';
import { join } from 'node:path';
import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';
import { renderPathShim, shQuote, writeHeadersHelper, writePrivateFile } from './files.js';
import { layeredInstructions, readCodexUserConfig, tomlString } from './codex-user-config.js';
import type { DriverInput, DriverLaunch } from './types.js';

/**
 * The first Codex release known to read `http_headers_helper` on a
 * streamable-HTTP MCP server (a program Codex runs when it connects; its
 * stdout is a JSON object of header names to string values). Checked with
 * `codex mcp get --json` on released builds: 0.147.0 silently drops the key,
 * 0.148.0 keeps it (see specs/mcp.md).
 */
const CODEX_HEADERS_HELPER_SINCE: readonly [number, number, number] = [0, 148, 0];

/** The variable an older Codex reads the bearer from (`bearer_token_env_var`); set from the token file at each start. */
const CODEX_BEARER_ENV = 'AGENTTEAM_CODEX_BEARER';

/** `codex-cli 0.171.0` -> [0, 171, 0]; null when no version can be read. */
function parseCodexVersion(text: string | null | undefined): [number, number, number] | null {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(text ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** True unless the version is known and older than the helper; an unreadable version gets the helper. */
function codexHasHeadersHelper(version: string | null | undefined): boolean {
  const v = parseCodexVersion(version);
  if (!v) return true;
  for (let i = 0; i < 3; i++)
    if (v[i] !== CODEX_HEADERS_HELPER_SINCE[i]) return v[i]! > CODEX_HEADERS_HELPER_SINCE[i]!;
  return true;
}

/** The user's Codex home as the `run` process sees it. */
export function userCodexHome(env: Readonly<Record<string, string | undefined>>): string {
  return env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(homedir(), '.codex');
}

/** `-c key=value` pairs, value in TOML, in the order Codex applies them. */
export type CodexOverrides = readonly (readonly [string, string])[];

/** Flattens overrides into Codex command-line arguments. */
export function overrideArgs(overrides: CodexOverrides): string[] {
  return overrides.flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}

/**
 * agentteam's entries for a `codex exec` / interactive Codex: the
 * `agentteam` MCP server (URL and header helper), the approval mode for its
 * tools (`approve`: `codex exec` runs with approval policy `never`, under
 * which a tool that needs approval is refused) and the guidance as
 * `developer_instructions` (the user's own top-level ones first).
 */
function codexExecOverrides(
  input: DriverInput,
  guidance: string,
  helper: string | null,
): CodexOverrides {
  const user = readCodexUserConfig(userCodexHome(input.env ?? {}));
  const server = `mcp_servers.${MCP_SERVER_NAME}`;
  return [
    [`${server}.url`, tomlString(input.mcpUrl)],
    helper
      ? [`${server}.http_headers_helper`, tomlString(helper)]
      : [`${server}.bearer_token_env_var`, tomlString(CODEX_BEARER_ENV)],
    [`${server}.default_tools_approval_mode`, tomlString('approve')],
    ['developer_instructions', tomlString(layeredInstructions(user, guidance))],
  ];
}

/**
 * Codex: the user's own Codex (their CODEX_HOME or ~/.codex: config.toml,
 * profiles, login, transcripts) with agentteam's entries layered on top as
 * `-c` overrides, the highest layer Codex's loader has. Nothing of the
 * user's is written or copied; CODEX_HOME is left alone, so sessions are
 * recorded where the user's Codex keeps them and outlive the authorization.
 *
 * The header comes from a helper script that reads the token file at each
 * connection. A Codex older than the helper reads the bearer from
 * AGENTTEAM_CODEX_BEARER instead, which `run` (or the shim) sets from the
 * token file when it starts Codex: a running old Codex keeps the token it
 * started with.
 */
export function prepareCodex(input: DriverInput, guidance: string): DriverLaunch {
  const dir = join(input.privateDir, 'codex');
  const helper = codexHasHeadersHelper(input.runtimeVersion) ? join(dir, 'mcp-headers.sh') : null;
  if (helper) writeHeadersHelper(helper, input.tokenFile);
  const args = overrideArgs(codexExecOverrides(input, guidance, helper));
  const guidanceFile = join(dir, 'guidance.md');
  writePrivateFile(guidanceFile, guidance);
  const shimDir = join(dir, 'bin');
  const shim = join(shimDir, 'codex');
  writePrivateFile(shim, renderCodexShim(shimDir, args, helper ? null : input.tokenFile), 0o700);
  const files: Record<string, string> = { guidance: guidanceFile, shim };
  if (helper) files.helper = helper;
  return {
    env: { AGENTTEAM_GUIDANCE_FILE: guidanceFile },
    args,
    argsFor: 'codex',
    shimDir,
    ...(helper ? {} : { tokenEnv: CODEX_BEARER_ENV }),
    files,
  };
}

/** The PATH shim for a wrapped command: drops its own directory from PATH, then runs the real codex with the overrides. */
function renderCodexShim(
  shimDir: string,
  args: readonly string[],
  bearerFrom: string | null,
): string {
  return renderPathShim(
    shimDir,
    "starts the real codex with agentteam's -c overrides on top of your own configuration.",
    [
      ...(bearerFrom
        ? [
            `${CODEX_BEARER_ENV}=$(cat ${shQuote(bearerFrom)}) || exit 1`,
            `export ${CODEX_BEARER_ENV}`,
          ]
        : []),
      `exec codex ${args.map(shQuote).join(' ')} "$@"`,
    ],
  );
}
