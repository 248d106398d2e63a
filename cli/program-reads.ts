import { readFileSync } from 'node:fs';
import type { Command as CommandType } from 'commander';
import type { OperatorCommandSpec } from '../catalog/operator-commands.js';
import { DEFAULT_PERSON, DEFAULT_SERVER } from '../catalog/ids.js';

type Commander = typeof import('commander');

/** lib/generated.ts's OPERATOR_COMMANDS_FILE, as a URL: every command pays for this module, not for node:path and node:url. */
const SPECS = new URL('../generated/operator-commands.json', import.meta.url);

/** The read and write commands the build derived from the catalog (dist/generated/operator-commands.json); none before a build. */
function commandSpecs(): OperatorCommandSpec[] {
  try {
    return JSON.parse(readFileSync(SPECS, 'utf8')) as OperatorCommandSpec[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** The subcommand `name` of `parent`, declared with `description` if it is not there yet. */
function group(parent: CommandType, name: string, description: string): CommandType {
  return (
    parent.commands.find((c) => c.name() === name) ?? parent.command(name).description(description)
  );
}

const GROUPS: Readonly<Record<string, string>> = {
  task: 'Create, assign, update and read tasks (agents see the same tasks through Exec).',
  project: 'Create and read projects that tasks belong to.',
  review: "Read a task's reviews.",
  'scheduled-message': 'Read the scheduled messages agents create and their delivery runs.',
  workflow: 'Read workflow runs.',
  run: 'Workflow runs.',
};

const WRITE_HELP: Readonly<Record<string, string>> = {
  task: `
The change is recorded for the person (--as): in the audit trail, and as the
caller of the idempotency key. Assigning the task to an agent of the profile
(at create, with update --assignee or with assign) posts the assignment to the
task's thread (task:<id>) as that person and starts the agent's turn there;
assigning the same agent again starts nothing. An agent's own assignments
(through Exec) never start a turn.`,
};

/**
 * Declares one command per operator read and write: required input fields
 * become arguments, the others options (enums as choices, integers checked,
 * `--no-<flag>` where the field may be cleared with null), all named and
 * described as the catalog's input schema names them, plus `--server`, and
 * for a write `--as human:<handle>`. Every command runs
 * cli/commands/operator-read.ts.
 */
export function declareReadCommands(
  program: CommandType,
  commander: Commander,
  action: (cmd: CommandType) => Promise<void>,
): void {
  const { InvalidArgumentError, Option } = commander;
  for (const spec of commandSpecs()) {
    let parent = program;
    for (const word of spec.command.slice(0, -1))
      parent = group(parent, word, GROUPS[word] ?? word);
    const cmd = parent.command(spec.command.at(-1)!).description(spec.summary);
    for (const a of spec.args) cmd.argument(`<${a.name}>`, a.description);
    for (const f of spec.options) {
      const opt = new Option(`${f.flag} <${f.type === 'integer' ? 'n' : f.name}>`, f.description);
      if (f.choices) opt.choices(f.choices);
      if (f.type === 'integer') {
        opt.argParser((v: string) => {
          const n = /^-?[0-9]+$/.test(v) ? Number(v) : NaN;
          if (!(n >= (f.minimum ?? -Infinity) && n <= (f.maximum ?? Infinity))) {
            throw new InvalidArgumentError(
              `expected an integer${f.minimum !== undefined ? ` from ${f.minimum}` : ''}${f.maximum !== undefined ? ` to ${f.maximum}` : ''}`,
            );
          }
          return n;
        });
      }
      cmd.addOption(opt);
      if (f.nullable)
        cmd.addOption(
          new Option(`--no-${f.flag.slice(2)}`, `clear the ${f.flag.slice(2).replace(/-/g, ' ')}`),
        );
    }
    cmd.option('--server <id>', `server id (default: ${DEFAULT_SERVER})`);
    if (spec.write) {
      cmd.option(
        '--as <person>',
        `human:<handle> the change is made for (default: the profile's person, else ${DEFAULT_PERSON})`,
      );
      cmd.addHelpText('after', WRITE_HELP[spec.domain] ?? '');
    }
    cmd.action(async function (this: CommandType) {
      await action(this);
    });
  }
}

/** The words of a command below the program (`['workflow', 'run', 'list']`). */
export function commandPath(cmd: CommandType): string[] {
  const out: string[] = [];
  for (let c: CommandType | null = cmd; c?.parent; c = c.parent) out.unshift(c.name());
  return out;
}
