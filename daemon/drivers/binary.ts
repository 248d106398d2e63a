import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shQuote, writePrivateFile } from './files.js';

/**
 * The canonical `agentteam` a runtime calls: the CLI bundle of the build the
 * daemon runs from (dist/cli/agentteam.cjs beside dist/daemon/), run by the
 * daemon's own Node binary. Neither depends on the runtime's PATH or on
 * `npm link`, so an agent always reaches the daemon that launched it with
 * the same version of the command.
 */
export interface AgentteamBinary {
  readonly node: string;
  readonly cli: string;
}

class MissingBinaryError extends Error {
  override name = 'MissingBinaryError';
}

/** Selected once, at daemon start; a build without the CLI bundle cannot launch runtimes and is refused. */
export function selectAgentteamBinary(): AgentteamBinary {
  const cli = fileURLToPath(new URL('../../cli/agentteam.cjs', import.meta.url));
  if (!existsSync(cli))
    throw new MissingBinaryError(
      `the agentteam CLI bundle ${cli} is missing; run \`npm run build\``,
    );
  return { node: process.execPath, cli };
}

/** The runtime's private bin directory: `<privateDir>/bin`, put first on the runtime's PATH by `run`. */
export function binDirOf(privateDir: string): string {
  return join(privateDir, 'bin');
}

/**
 * Writes `<privateDir>/bin/agentteam` (0700 in a 0700 directory): a launcher
 * that runs the selected CLI with the selected Node. Returns its path.
 */
export function writeAgentteamLauncher(privateDir: string, bin: AgentteamBinary): string {
  const path = join(binDirOf(privateDir), 'agentteam');
  writePrivateFile(
    path,
    [
      '#!/bin/sh',
      '# Written by agentteam: the agentteam command of the daemon that launched this runtime.',
      `exec ${shQuote(bin.node)} ${shQuote(bin.cli)} "$@"`,
      '',
    ].join('\n'),
    0o700,
  );
  return path;
}
