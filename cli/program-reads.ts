import { readFileSync } from 'node:fs';
import type { Command as CommandType } from 'commander';
import type { ReadCommandSpec } from '../catalog/operator-reads.js';
import { DEFAULT_SERVER } from '../catalog/ids.js';

type Commander = typeof import('commander');

/** lib/generated.ts's OPERATOR_READS_FILE, as a URL: every command pays for this module, not for node:path and node:url. */
const SPECS = new URL('../generated/operator-reads.json', import.meta.url);

/** The read commands the build derived from the catalog (dist/generated/operator-reads.json); none before a build. */
function readCommandSpecs(): ReadCommandSpec[] {
  try {
    return JSON.parse(readFileSync(SPECS, 'utf8')) as ReadCommandSpec[];
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
  task: 'Read the tasks agents create.',
  'scheduled-message': 'Read the scheduled messages agents create and their delivery runs.',
  workflow: 'Read workflow runs.',
  run: 'Workflow runs.',
};

/**
 * Declares one command per operator read: required input fields become
 * arguments, the others options (enums as choices, integers checked), all
 * named and described as the catalog's input schema names them, plus
 * `--server`. Every command runs cli/commands/operator-read.ts.
 */
export function declareReadCommands(
  program: CommandType,
  commander: Commander,
  action: (cmd: CommandType) => Promise<void>,
): void {
  const { InvalidArgumentError, Option } = commander;
  for (const spec of readCommandSpecs()) {
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
    }
    cmd.option('--server <id>', `server id (default: ${DEFAULT_SERVER})`);
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
