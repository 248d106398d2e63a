import { readFileSync } from 'node:fs';
import { renderActionHelp, renderDomainHelp, renderExecIndex } from '../../catalog/help.js';
import { schemaFile } from '../../lib/generated.js';
import { findAction, findDomain, loadHelpIndex } from '../exec/help-index.js';
import { ERROR_TABLE } from '../../catalog/errors.js';
import { printData, printMessage } from '../exec/output.js';
import { unknownNameMessage } from '../exec/suggest.js';

/**
 * `agentteam exec [<domain> [<action> [JSON | -]]]` with --help,
 * --input-schema, --output-schema and --error-schema. Help and schemas come
 * from generated files; the validator and node:http are imported only when a
 * call is actually made, so help never pays for them.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [domain, action, input] = args;
  if (opts.errorSchema) {
    if (domain !== undefined) return usage('--error-schema takes no domain or action');
    printData(readFileSync(schemaFile('error-envelope'), 'utf8'));
    return 0;
  }
  const index = await loadHelpIndex();
  if (domain === undefined) {
    if (opts.help) return help(renderExecIndex(index));
    process.stderr.write(renderExecIndex(index));
    return 2;
  }
  const d = findDomain(index, domain);
  if (!d) return usage(unknownNameMessage('domain', domain, index.domains.map((x) => x.domain)));
  if (action === undefined) {
    if (opts.help) return help(renderDomainHelp(d));
    process.stderr.write(renderDomainHelp(d));
    return 2;
  }
  const a = findAction(d, action);
  if (!a) return usage(unknownNameMessage('action', action, d.actions.map((x) => x.action)), `agentteam exec ${domain} --help`);
  if (opts.help) return help(renderActionHelp(domain, a));
  if (opts.inputSchema && opts.outputSchema) return usage('give either --input-schema or --output-schema, not both');
  if (opts.inputSchema || opts.outputSchema) {
    printData(readFileSync(schemaFile(`${domain}.${action}.${opts.inputSchema ? 'input' : 'output'}`), 'utf8'));
    return 0;
  }
  const { call } = await import('../exec/call.js');
  return call(domain, action, input, a.acceptsEmpty);
}

function help(text: string): number {
  process.stdout.write(text);
  return 0;
}

function usage(message: string, see = 'agentteam exec --help'): number {
  // A usage error is a message only: nothing on stdout, the exit status of the table's `usage` row.
  printMessage(`${message}\nSee \`${see}\`.`);
  return ERROR_TABLE.usage.exit;
}
