import type { Command as CommandType } from 'commander';
import { RUNTIME_KINDS } from '../catalog/runtimes.js';
import { exitStatusOfFailure } from './failure.js';
import { packageVersion } from './version.js';
import { visibleBlock } from './terminal-text.js';
import { DEFAULT_SERVER } from '../catalog/ids.js';
import { READ_COMMAND } from './defaults.js';
import { commandPath, declareReadCommands } from './program-reads.js';

/**
 * Every `agentteam` command is declared here (the catalog's operator reads
 * through cli/program-reads.ts); each one's code lives in
 * cli/commands/<name>.ts and is imported only when that command runs, so
 * `--help` and the other commands never load it. The installed binary
 * (cli/agentteam.ts) runs `exec` itself and loads this module only for the
 * other commands; between them they are the only code that sets the process
 * exit status.
 */

/** The contract every cli/commands/<name>.ts module fulfils. */
interface CommandModule {
  main(opts: Record<string, unknown>, args: string[]): Promise<number>;
}

export type CommandName =
  | 'exec'
  | 'daemon-start'
  | 'daemon-status'
  | 'daemon-stop'
  | 'daemon-reload'
  | 'run'
  | 'message-post'
  | 'message-history'
  | 'token-analyze'
  | 'approval-decide'
  | 'approval-get'
  | 'extension-install'
  | 'extension-list'
  | 'extension-remove'
  | 'store-backup'
  | 'serve'
  | 'tools-schema'
  | 'tools-list'
  | 'tools-check'
  | 'tools-log'
  | 'tools-answer'
  | 'operator-read'
  | 'daemon-logs'
  | 'completion'
  | 'audit'
  | 'console';

const USAGE_EXIT = 2;

/**
 * A usage mistake commander caught: besides its message on stderr, the same
 * JSON error envelope on stdout as a validation error, so scripts read every
 * refusal the same way. A group called without its subcommand counts too.
 */
async function usageError(err: { code: string; message: string }): Promise<number> {
  const message =
    err.code === 'commander.help'
      ? 'a subcommand is required (see --help)'
      : err.message.replace(/^error: /, '');
  const { boundErrorBody } = await import('../catalog/error-limits.js');
  const { jsonText } = await import('./json-text.js');
  // commander has printed the message on stderr already: only the envelope here.
  process.stdout.write(
    `${jsonText({ ok: false, error: boundErrorBody({ code: 'usage', message }) })}\n`,
  );
  return USAGE_EXIT;
}

type Commander = typeof import('commander');

/**
 * commander is loaded only for commands other than exec. Its ESM entry
 * re-exports the CommonJS build; requiring that directly skips the
 * ESM-to-CJS translation and a few ms of start-up.
 */
async function loadCommander(): Promise<Commander> {
  const { createRequire } = await import('node:module');
  return createRequire(import.meta.url)('commander') as Commander;
}

export function buildProgram(
  commander: Commander,
  onCommand: (name: CommandName, cmd: CommandType) => Promise<void>,
): CommandType {
  const { Command, InvalidArgumentError, Option } = commander;
  const positiveInt = (value: string): number => {
    if (!/^[1-9][0-9]*$/.test(value)) throw new InvalidArgumentError('expected a positive integer');
    return Number(value);
  };
  const program = new Command('agentteam')
    .description('Local daemon and CLI through which agent runtimes call back into their team.')
    .version(packageVersion(), '-V, --version')
    .enablePositionalOptions()
    .exitOverride()
    // commander repeats what was typed (an unknown option, a bad value): shown inert, as every message.
    .configureOutput({ outputError: (text, write) => write(visibleBlock(text, '')) })
    .showSuggestionAfterError();
  const bind = (name: CommandName) =>
    async function (this: CommandType) {
      await onCommand(name, this);
    };

  // Listed here for `agentteam --help`; its own grammar is parsed by parseExecArgv (see run()).
  program
    .command('exec')
    .description('Call an agentteam action (see `agentteam exec --help`).')
    .usage(
      '[<domain> [<action> [JSON | -]]] [--help | --input-schema | --output-schema | --error-schema]',
    )
    .helpOption(false)
    .allowUnknownOption()
    .argument('[args...]')
    .action(bind('exec'));

  const daemon = program
    .command('daemon')
    .description('Start, inspect, reload and stop the local daemon.');
  daemon
    .command('start')
    .description('Start the daemon (detached unless --foreground).')
    .option('--listen <host:port>', 'address to listen on', '127.0.0.1:0')
    .option('--foreground', 'stay in the foreground')
    .option('--allow-remote', 'allow a non-loopback listen address')
    .option(
      '--allow-host <name>',
      'with --allow-remote: also accept this name in Host/Origin (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--store <url>',
      'share a team through PostgreSQL 14+: postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: the embedded SQLite file in the home; AGENTTEAM_STORE_URL works too and keeps the password out of the process list)',
    )
    .action(bind('daemon-start'));
  daemon
    .command('status')
    .description('Print the running daemon as JSON.')
    .action(bind('daemon-status'));
  daemon
    .command('stop')
    .description('Stop the daemon, revoking every runtime authorization.')
    .action(bind('daemon-stop'));
  daemon
    .command('reload')
    .description(
      'Re-read profile.json (agents, teams, denyTools), kb.json (team knowledge) and tools/*.json (declared tools); same as SIGHUP.',
    )
    .addHelpText(
      'after',
      '\nThe tools/ folder is also watched: a declaration added, changed or removed there takes effect within about a second without a reload.\nPrints what was loaded and any problems as JSON.',
    )
    .action(bind('daemon-reload'));
  daemon
    .command('logs')
    .description(
      "Print the daemon's recent diagnostics, one JSON line each; with --follow, keep printing them and the operator events as they happen.",
    )
    .option('--follow', 'keep printing until interrupted or the daemon stops')
    .option('--limit <n>', 'recent lines to print first (default 100, at most 1000)', positiveInt)
    .action(bind('daemon-logs'));

  program
    .command('run')
    .description('Run a command as an agent runtime with a fresh Exec/MCP authorization.')
    .usage('--agent <id> [--server <id>] [options] -- <command> [args...]')
    .option('--server <id>', 'server id', DEFAULT_SERVER)
    .requiredOption('--agent <id>', 'agent id')
    .option('--session <id>', 'session id')
    .option('--run <id>', 'run id')
    .option('--workdir <dir>', 'working directory of the command')
    .option('--ttl <seconds>', 'lifetime of one token generation', positiveInt)
    .addOption(new Option('--runtime <name>', 'runtime driver').choices(RUNTIME_KINDS))
    .option(
      '--turn-target <target>',
      'target of the human-initiated turn this runtime answers (for kb_search/kb_fetch)',
    )
    .option('--turn-message <messageId>', 'id of the human message that started the turn')
    .option(
      '--prompt <text>',
      'with --runtime codex-app-server: the first turn of the primary thread',
    )
    .option(
      '--restart-wait <seconds>',
      'when the daemon goes away: how long to wait for it to come back before stopping the command (default 30)',
      positiveInt,
    )
    .argument('<command...>', 'the command and its arguments (after --)')
    // Everything after the command belongs to the child, options included.
    .passThroughOptions()
    .action(bind('run'));

  const message = program.command('message').description('Post and read messages as an operator.');
  message
    .command('post')
    .description('Post a message to a target.')
    .requiredOption('--target <target>', 'exact target')
    .requiredOption('--as <sender>', 'human:<handle>')
    .option('--server <id>', `server id (default: ${DEFAULT_SERVER})`)
    .option('--reply-to <messageId>', 'id of the message this one answers')
    .argument('<text>', 'message text')
    .action(bind('message-post'));
  message
    .command('history')
    .description('Read the messages of a target, newest first.')
    .requiredOption('--target <target>', 'exact target')
    .option('--limit <n>', 'page size', positiveInt)
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .option('--server <id>', `server id (default: ${DEFAULT_SERVER})`)
    .action(bind('message-history'));

  program
    .command('token')
    .description("Diagnostics of what agentteam costs a runtime's context.")
    .command('analyze')
    .description(
      "Count the tokens and bytes of the MCP inventory, runtime guidance, Exec index and, with --session, of each agentteam tool's results in a transcript.",
    )
    .addOption(
      new Option('--runtime <name>', 'runtime whose view to measure')
        .choices(RUNTIME_KINDS)
        .default('generic'),
    )
    .option('--session <file>', 'a Claude Code or Codex session transcript (JSONL)')
    .option('--json', 'print one JSON object instead of tables')
    .action(bind('token-analyze'));

  const approval = program
    .command('approval')
    .description('Read and decide approval requests of agents.');
  approval
    .command('decide')
    .description('Approve or reject a pending approval request.')
    .argument('<id>', 'approval id (appr_...)')
    .argument('<decision>', 'approve or reject')
    .option('--note <text>', 'a note the agent sees with the decision')
    .option('--as <person>', 'human:<handle> (default human:operator)')
    .action(bind('approval-decide'));
  approval
    .command('get')
    .description('Show one approval request.')
    .argument('<id>', 'approval id')
    .action(bind('approval-get'));

  const extension = program
    .command('extension')
    .description('Install, list and remove provider extensions (e.g. github PR watches).');
  extension
    .command('install')
    .description('Install or replace an extension from its definition file.')
    .argument('<file>', 'definition JSON file')
    .action(bind('extension-install'));
  extension
    .command('list')
    .description('List installed extensions and the catalog version.')
    .action(bind('extension-list'));
  extension
    .command('remove')
    .description('Remove an installed extension.')
    .argument('<name>', 'extension name')
    .action(bind('extension-remove'));

  const store = program.command('store').description('Work with the local store.');
  store
    .command('backup')
    .description(
      'Write a consistent copy of the store to FILE (0600), online while the daemon runs.',
    )
    .option('--force', 'overwrite FILE if it exists')
    .argument('<file>', 'where to write the copy')
    .action(bind('store-backup'));

  program
    .command('console')
    .description('Print a one-time sign-in link to the operator console (valid 60 s, usable once).')
    .option('--open', 'also open the link in the default browser (xdg-open or open)')
    .action(bind('console'));

  program
    .command('serve')
    .description(
      'Serve an app that spawned this process: its tools for agents, over stdin/stdout (JSON-RPC, one frame per line).',
    )
    .option('--stdio', 'the transport (required): JSON-RPC 2.0 frames on stdin/stdout')
    .option('--server <id>', 'offer the tools to agents of this server only')
    .action(bind('serve'));

  const tools = program
    .command('tools')
    .description(
      'Declared tools: list what agents can call, check declaration files, read what tools showed and asked.',
    )
    .option('--schema', 'print the JSON Schema of a declaration file')
    .action(bind('tools-schema'));
  tools
    .command('list')
    .description('List every tool agents can call, with its source (needs a running daemon).')
    .option('--json', 'print JSON')
    .action(bind('tools-list'));
  tools
    .command('check')
    .description('Check one declaration file, or all of $AGENTTEAM_HOME/tools (no daemon needed).')
    .argument('[file]')
    .action(bind('tools-check'));
  tools
    .command('log')
    .description('What declared tools showed to people and asked them.')
    .option('--limit <n>', 'entries', positiveInt)
    .option('--json', 'print JSON')
    .action(bind('tools-log'));
  tools
    .command('answer')
    .description('Answer a question a tool asked; its next call gets it as `answered`.')
    .argument('<askId>')
    .argument('<text...>')
    .action(bind('tools-answer'));

  program
    .command('audit')
    .description('What agents called: one record per call, newest first (needs a running daemon).')
    .option('--agent <id>', 'only this agent')
    .option('--tool <name>', 'only this tool (MCP) or domain/action (Exec)')
    .option('--outcome <code>', 'only calls that ended so: ok or an error code')
    .option('--server <id>', 'only this server')
    .option('--since <age>', 'only calls of the last 90s, 15m, 1h, 7d ...')
    .option('--limit <n>', 'page size (1 to 100, default 20)', positiveInt)
    .option('--cursor <cursor>', 'the next page (printed on stderr after a page)')
    .option('--follow', 'print the newest page, then each new call as it is recorded')
    .option('--json', 'print JSON (with --follow: one object per line)')
    .option(
      '--summary',
      'calls, errors and p50/p95 duration per tool and per agent (default window: 1d)',
    )
    .action(bind('audit'));

  declareReadCommands(program, commander, (cmd) => onCommand('operator-read', cmd));

  program
    .command('completion')
    .description(
      'Print a shell completion script (bash or zsh); e.g. `source <(agentteam completion bash)`.',
    )
    .argument('<shell>', 'bash or zsh')
    .action(bind('completion'));

  markRequired(program);
  return program;
}

/** Help shows which options must be given: commander lists required options like the others. */
function markRequired(cmd: CommandType): void {
  for (const o of cmd.options)
    if (o.mandatory && !o.description.endsWith('(required)'))
      o.description = `${o.description} (required)`;
  cmd.commands.forEach(markRequired);
}

async function dispatch(
  name: CommandName,
  opts: Record<string, unknown>,
  args: string[],
): Promise<number> {
  const mod = (await import(`./commands/${name}.js`)) as CommandModule;
  return mod.main(opts, args);
}

/** exec's own grammar (parsed without commander; see cli/exec/argv.ts). */
async function dispatchExec(tokens: readonly string[]): Promise<number> {
  const { runExec } = await import('./exec/argv.js');
  return runExec(tokens);
}

/** Parses argv, runs one command, sets the exit status. */
export async function run(argv: readonly string[]): Promise<void> {
  let code = 0;
  try {
    if (argv[2] === 'exec') {
      // The hot path: straight to the exec command, without loading commander.
      code = await dispatchExec(argv.slice(3));
    } else {
      const commander = await loadCommander();
      const program = buildProgram(commander, async (name, cmd) => {
        if (name === 'exec') code = await dispatchExec(cmd.args);
        else if (name === 'operator-read')
          code = await dispatch(
            name,
            { ...cmd.opts(), [READ_COMMAND]: commandPath(cmd) },
            cmd.args,
          );
        else code = await dispatch(name, cmd.opts(), cmd.args);
      });
      try {
        await program.parseAsync([...argv]);
      } catch (err) {
        // commander has already printed its message (stderr), or the help or version text.
        if (!(err instanceof commander.CommanderError)) throw err;
        code = err.exitCode === 0 ? 0 : await usageError(err);
      }
    }
  } catch (err) {
    code = exitStatusOfFailure(err);
  }
  process.exitCode = code;
}
