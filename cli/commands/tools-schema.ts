import { DECLARATION_SCHEMA } from '../../catalog/tool-declaration-schema.js';
import { refuse } from '../refusal.js';

/** `agentteam tools --schema`: the JSON Schema of a declaration file (draft 2020-12). */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  if (opts.schema !== true) {
    return refuse(
      'tools',
      'usage',
      'name a subcommand (list, check, log, answer) or --schema; see agentteam tools --help',
    );
  }
  process.stdout.write(`${JSON.stringify(DECLARATION_SCHEMA, null, 2)}\n`);
  return 0;
}
