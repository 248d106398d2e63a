import type { Command as CommandType } from 'commander';
import { exitStatusOfFailure } from './failure.js';
import { packageVersion } from './version.js';
import { visibleBlock } from './terminal-text.js';
import { READ_COMMAND } from './defaults.js';
import { commandPath } from './program-reads.js';
import type { CommandName, Commander } from './command-names.js';
import { declareRuntimeCommands } from './program-runtime.js';
import { declareOperatorCommands } from './program-operator.js';
import { declareDeviceCommands } from './program-devices.js';

/**
 * Every `agentteam` command is declared from here (cli/program-runtime.ts,
 * cli/program-operator.ts, the catalog's operator reads through
 * cli/program-reads.ts); each one's code lives in
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

export type { CommandName } from './command-names.js';

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
  const { Command, InvalidArgumentError } = commander;
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

  declareRuntimeCommands(program, commander, bind, positiveInt);
  declareOperatorCommands(program, commander, bind, positiveInt, (cmd) =>
    onCommand('operator-read', cmd),
  );
  declareDeviceCommands(program, bind);
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
