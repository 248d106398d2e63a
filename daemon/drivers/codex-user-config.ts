import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';
import { ExecError } from '../errors/exec-error.js';

/**
 * What agentteam needs to know of the user's own Codex configuration before
 * it layers its entries on top: the files are only read, never written.
 *
 * Codex (0.171) loads `$CODEX_HOME/config.toml`, then, with `--profile NAME`,
 * `$CODEX_HOME/NAME.config.toml` on top of it, then every `-c key=value`
 * given on its command line on top of both. agentteam's entries are such
 * `-c` values, so they win over the user's for the few keys they set and
 * leave everything else (providers, approvals, other MCP servers, profiles,
 * login, transcripts) exactly as the user has it.
 */
interface CodexUserConfig {
  /** The user's Codex home: `CODEX_HOME` of the `run` process, or `~/.codex` of its HOME. */
  readonly home: string;
  /** The top-level `developer_instructions` of config.toml, kept in front of agentteam's guidance. */
  readonly developerInstructions: string | null;
}

type Table = Record<string, unknown>;

function readToml(file: string): Table | null {
  if (!existsSync(file)) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ExecError(
      'invalid_request',
      `cannot read the Codex configuration ${file}: ${(err as Error).message}`,
    );
  }
  try {
    return parse(text) as Table;
  } catch (err) {
    const first = (err as Error).message.split('\n')[0] ?? '';
    throw new ExecError(
      'invalid_request',
      `the Codex configuration ${file} is not valid TOML (${first}); Codex would refuse it too`,
    );
  }
}

function declaresServer(doc: Table | null): boolean {
  const servers = doc?.mcp_servers;
  return (
    servers !== null &&
    typeof servers === 'object' &&
    Object.hasOwn(servers as Table, MCP_SERVER_NAME)
  );
}

/**
 * Reads the user's config.toml and profile files (`*.config.toml`) in their
 * Codex home. A user's own `[mcp_servers.agentteam]` would be merged key by
 * key with agentteam's (a `command` of theirs next to agentteam's `url`), so
 * it is refused as a conflict naming the file, rather than half-applied.
 */
export function readCodexUserConfig(home: string): CodexUserConfig {
  const main = join(home, 'config.toml');
  const doc = readToml(main);
  const files = [main];
  let names: string[] = [];
  try {
    names = readdirSync(home)
      .filter((n) => n.endsWith('.config.toml'))
      .sort();
  } catch {
    // no Codex home yet: Codex creates it on first use
  }
  for (const n of names) files.push(join(home, n));
  for (const file of files) {
    const d = file === main ? doc : readToml(file);
    if (declaresServer(d)) {
      throw new ExecError(
        'already_exists',
        `${file} already declares an MCP server named "${MCP_SERVER_NAME}"; agentteam adds its own under that name for the run. Rename or remove yours, then start the run again.`,
        {
          metadata: { conflict: `mcp_servers.${MCP_SERVER_NAME}`, file },
        },
      );
    }
  }
  const di = doc?.developer_instructions;
  return { home, developerInstructions: typeof di === 'string' && di.length > 0 ? di : null };
}

/** The instructions Codex gets: the user's own first (the `-c` layer replaces the key), then agentteam's guidance. */
export function layeredInstructions(user: CodexUserConfig, guidance: string): string {
  return user.developerInstructions ? `${user.developerInstructions}\n\n${guidance}` : guidance;
}

/** A TOML basic string (the JSON escapes used for these values are a subset TOML accepts). */
export function tomlString(s: string): string {
  return JSON.stringify(s);
}
