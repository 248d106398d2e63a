import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { AgentConfig } from '../profile/types.js';
import type { TurnError } from '../../catalog/turns.js';

/** Why a turn could not start; it is recorded `failed` with the code and the detail goes to the log. */
export class TurnLaunchError extends Error {
  override name = 'TurnLaunchError';
  constructor(
    readonly code: TurnError,
    message: string,
  ) {
    super(message);
  }
}

/** The runtime's argv and how the prompt reaches it, and the session it starts or resumes. */
interface RuntimeCommand {
  readonly argv: string[];
  /** True when the runtime is `codex app-server`, driven over JSON-RPC rather than given the prompt on stdin. */
  readonly appServer: boolean;
  /** The runtime's own session id, when the daemon knows it before the start (null otherwise). */
  readonly sessionId: string | null;
  readonly resumed: boolean;
  /** True when the runtime names its session in its output (OpenCode's JSON events), read as it runs. */
  readonly sessionInOutput: boolean;
}

const BINARIES = {
  claude: 'claude',
  codex: 'codex',
  'codex-app-server': 'codex',
  opencode: 'opencode',
  generic: null,
} as const;

/** `name` as the runtime's PATH finds it, or the absolute path if it is executable. */
function findExecutable(name: string, path: string | undefined): string | null {
  const ok = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (name.includes('/')) return isAbsolute(name) && ok(name) ? name : null;
  for (const dir of (path ?? '').split(delimiter))
    if (dir && isAbsolute(dir) && ok(join(dir, name))) return join(dir, name);
  return null;
}

/**
 * The command that runs one turn for `agent`: its declared command, or its
 * runtime's executable with the turn's session flags and the profile's extra arguments. The prompt reaches every
 * runtime on stdin except Codex, which runs as `codex app-server` and gets it
 * in `turn/start`. `previous` is the runtime session of the agent's last
 * turn on the same target.
 */
export function runtimeCommand(
  agent: AgentConfig,
  previous: string | null,
  path: string | undefined,
): RuntimeCommand {
  const { launch } = agent;
  if (launch.command) {
    const bin = findExecutable(launch.command[0]!, path);
    if (!bin) throw notFound(launch.command[0]!);
    return {
      argv: [bin, ...launch.command.slice(1), ...launch.args],
      appServer: false,
      sessionId: null,
      resumed: false,
      sessionInOutput: false,
    };
  }
  const name = launch.binary ?? BINARIES[agent.runtime];
  if (name === null)
    throw new TurnLaunchError(
      'no_runtime',
      `agent ${agent.id} has runtime generic and no launch.command: nothing to start`,
    );
  const bin = findExecutable(name, path);
  if (!bin) throw notFound(name);
  switch (agent.runtime) {
    case 'claude': {
      // Print mode reads the prompt from stdin; --session-id names a new session, --resume continues one.
      const sessionId = previous ?? randomUUID();
      const session = previous ? ['--resume', previous] : ['--session-id', sessionId];
      return {
        argv: [bin, '-p', ...session, ...launch.args],
        appServer: false,
        sessionId,
        resumed: previous !== null,
        sessionInOutput: false,
      };
    }
    case 'codex':
    case 'codex-app-server':
      // Driven as an app server: the thread (the session) is known once Codex has started or resumed it.
      return {
        argv: [bin, 'app-server', ...launch.args],
        appServer: true,
        sessionId: null,
        resumed: false,
        sessionInOutput: false,
      };
    case 'opencode':
      // The prompt on stdin; JSON events on stdout name the session, which --session continues.
      return {
        argv: [
          bin,
          'run',
          '--format',
          'json',
          ...(previous ? ['--session', previous] : []),
          ...launch.args,
        ],
        appServer: false,
        sessionId: null,
        resumed: false,
        sessionInOutput: true,
      };
    default:
      return {
        argv: [bin, ...launch.args],
        appServer: false,
        sessionId: null,
        resumed: false,
        sessionInOutput: false,
      };
  }
}

function notFound(name: string): TurnLaunchError {
  return new TurnLaunchError(
    'runtime_not_found',
    name.includes('/')
      ? `the runtime ${name} does not exist or is not executable`
      : `the runtime ${name} is not on PATH; set launch.binary to its absolute path`,
  );
}
