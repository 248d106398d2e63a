import { DECLARATION_SCHEMA } from '../../catalog/tool-declaration.js';

/** `agentteam tools --schema`: the JSON Schema of a declaration file (draft 2020-12). */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  if (opts.schema !== true) {
    process.stderr.write('agentteam tools: name a subcommand (list, check, log, answer) or --schema; see agentteam tools --help\n');
    return 2;
  }
  process.stdout.write(`${JSON.stringify(DECLARATION_SCHEMA, null, 2)}\n`);
  return 0;
}
