import type { Command as CommandType } from 'commander';
import { DEFAULT_SERVER } from '../catalog/ids.js';
import { RUNTIME_KINDS } from '../catalog/runtimes.js';
import type { CommandName, Commander } from './command-names.js';
import { declareReadCommands } from './program-reads.js';

/**
 * The operator's commands: messages, approvals, extensions, the store, the
 * console, declared tools, the audit trail, token analysis, and the catalog's
 * operator reads (cli/program-reads.ts). Each talks to the daemon's operator API.
 */
export function declareOperatorCommands(
  program: CommandType,
  commander: Commander,
  bind: (name: CommandName) => (this: CommandType) => Promise<void>,
  positiveInt: (value: string) => number,
  onRead: (cmd: CommandType) => Promise<void>,
): void {
  const { Option } = commander;
  const message = program.command('message').description('Post and read messages as an operator.');
  message
    .command('post')
    .description(
      'Post a message to a target. A turn is queued for each agent of the profile it addresses (the answer lists them).',
    )
    .requiredOption('--target <target>', 'exact target')
    .requiredOption('--as <sender>', 'human:<handle>')
    .option('--server <id>', `server id (default: ${DEFAULT_SERVER})`)
    .option('--reply-to <messageId>', 'id of the message this one answers')
    .argument('<text>', 'message text')
    .addHelpText(
      'after',
      `
Which agents a message starts a turn for (only a human: author starts any):
  dm:<agent>        that agent
  channel:<name>    each @<agent> mentioned, and the agent members of each @<team handle>
  thread:<msgId>    agents mentioned in the message or its root, the root's agent author,
                    and agents who already wrote in the thread
  task:<taskId>     the task's assignee when it is an agent, and each @<agent> mentioned
A message that arrives while the agent's turn on the same target is queued joins that turn.`,
    )
    .action(bind('message-post'));
  const turn = program
    .command('turn')
    .description("Turns: runs of an agent's runtime started for a person's message.");
  for (const [verb, what] of [
    ['cancel', 'Cancel a queued turn, or stop a running one (its whole process group).'],
    ['retry', 'Queue a new turn for the agent, target and messages of an ended one.'],
  ] as const) {
    turn
      .command(verb)
      .description(what)
      .argument('<id>', 'turn id (turn_...)')
      .option('--server <id>', `server id (default: ${DEFAULT_SERVER})`)
      .action(async function (this: CommandType) {
        this.setOptionValue('verb', verb);
        await bind('turn-control').call(this);
      });
  }
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
    .option('--for-turn', "a runtime's own request: approve its kind for the rest of its turn")
    .action(bind('approval-decide'));
  approval
    .command('get')
    .description('Show one approval request.')
    .argument('<id>', 'approval id')
    .action(bind('approval-get'));
  approval
    .command('hook')
    .description(
      "Claude Code's PermissionRequest hook (the Claude driver configures it): reads the hook JSON on stdin, files the request in the approval inbox and prints the decision.",
    )
    .action(bind('approval-hook'));

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
    .command('scopes')
    .description('Saved delegated scopes: each delegated session and the client tools it may call.')
    .option('--session <id>', 'only this delegated session (a child thread id)')
    .option('--json', 'print JSON')
    .action(bind('tools-scopes'));
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
    .option('--turn <id>', 'only the calls made in this delivered turn (agentteam turn list)')
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

  declareReadCommands(program, commander, onRead);
}
