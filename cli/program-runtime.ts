import type { Command as CommandType } from 'commander';
import { DEFAULT_SERVER } from '../catalog/ids.js';
import { RUNTIME_KINDS } from '../catalog/runtimes.js';
import type { CommandName, Commander } from './command-names.js';

/** The commands that run things: exec, the daemon, `run` and `serve`, and shell completion. */
export function declareRuntimeCommands(
  program: CommandType,
  commander: Commander,
  bind: (name: CommandName) => (this: CommandType) => Promise<void>,
  positiveInt: (value: string) => number,
): void {
  const { Option } = commander;
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
      "Print the daemon's recent diagnostics, one JSON line each; with --follow, keep printing them and the operator events as they happen (as JSON: for a readable view of messages, approvals, tasks and turns, use `agentteam watch`).",
    )
    .option('--follow', 'keep printing until interrupted or the daemon stops')
    .option('--limit <n>', 'recent lines to print first (default 100, at most 1000)', positiveInt)
    .action(bind('daemon-logs'));

  program
    .command('watch')
    .description(
      'Print what happens in the team as it happens: messages, approvals, tasks and turns, one readable line each (time, kind, who, what), until interrupted.',
    )
    .option('--kind <kinds>', 'only these event kinds, separated by commas')
    .option(
      '--target <target>',
      'only events about this target (dm:AGENT, channel:NAME, task:ID, ...)',
    )
    .option('--json', 'one JSON object a line ({"type","data"})')
    .action(bind('watch'));

  program
    .command('run')
    .description('Run a command as an agent runtime with a fresh Exec/MCP authorization.')
    .usage('--agent <id> [--server <id>] [options] -- <command> [args...]')
    .option('--server <id>', 'server id', DEFAULT_SERVER)
    .requiredOption('--agent <id>', 'agent id')
    .option(
      '--session <name>',
      'a label for this run, shown in the runtime list; a newer run with the same label replaces this one (the daemon mints the session and run ids)',
    )
    // Gone: the daemon mints run ids. Kept hidden so using it gets a clear refusal, not "unknown option".
    .addOption(new Option('--run <id>').hideHelp())
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

  program
    .command('serve')
    .description(
      'Serve an app that spawned this process: its tools for agents, over stdin/stdout (JSON-RPC, one frame per line).',
    )
    .option('--stdio', 'the transport (required): JSON-RPC 2.0 frames on stdin/stdout')
    .option('--server <id>', 'offer the tools to agents of this server only')
    .action(bind('serve'));

  program
    .command('completion')
    .description(
      'Print a shell completion script (bash or zsh); e.g. `source <(agentteam completion bash)`.',
    )
    .argument('<shell>', 'bash or zsh')
    .action(bind('completion'));
}
