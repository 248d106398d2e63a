import { readFileSync } from 'node:fs';
import { ERROR_TABLE } from '../../catalog/errors.js';
import { printData, printMessage, writeOut } from '../exec/output.js';

/**
 * `agentteam exec [<domain> [<action> [JSON | -]]]` with --help,
 * --input-schema, --output-schema and --error-schema.
 *
 * Start-up cost decides the shape: a call loads only its own generated
 * validator (whose existence is the proof that the action exists); the help
 * index, the help renderer and the name suggestions are loaded only for help
 * and for unknown names, and node:http only once a request is really sent.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [domain, action, input] = args;
  if (opts.errorSchema) {
    if (domain !== undefined) return usage('--error-schema takes no domain or action');
    const { schemaFile } = await import('../../lib/generated.js');
    printData(readFileSync(schemaFile('error-envelope'), 'utf8'));
    return 0;
  }
  const isCall = domain !== undefined && action !== undefined && !opts.help && !opts.inputSchema && !opts.outputSchema;
  if (isCall) {
    const [{ loadInputValidator }, { call }] = await Promise.all([import('../../lib/input-validators.js'), import('../exec/call.js')]);
    const check = await loadInputValidator(domain, action);
    if (check) return call(domain, action, input, check);
  }
  return describe(opts, domain, action);
}

/** Help, schemas and unknown names: everything that reads the help index. */
async function describe(opts: Record<string, unknown>, domain: string | undefined, action: string | undefined): Promise<number> {
  const [help, { loadHelpIndex, schemaFile }] = await Promise.all([import('../../catalog/help.js'), import('../../lib/generated.js')]);
  const index = await loadHelpIndex();
  if (domain === undefined) return opts.help ? show(help.renderExecIndex(index)) : showUsage(help.renderExecIndex(index));
  const d = index.domains.find((x) => x.domain === domain);
  if (!d) return unknown('domain', domain, index.domains.map((x) => x.domain));
  if (action === undefined) return opts.help ? show(help.renderDomainHelp(d)) : showUsage(help.renderDomainHelp(d));
  const a = d.actions.find((x) => x.action === action);
  if (!a) return unknown('action', action, d.actions.map((x) => x.action), `agentteam exec ${domain} --help`);
  if (opts.help) return show(help.renderActionHelp(domain, a));
  if (opts.inputSchema && opts.outputSchema) return usage('give either --input-schema or --output-schema, not both');
  if (opts.inputSchema || opts.outputSchema) {
    printData(readFileSync(schemaFile(`${domain}.${action}.${opts.inputSchema ? 'input' : 'output'}`), 'utf8'));
    return 0;
  }
  // The index knows the action but the build left no validator: a broken build, not a usage error.
  throw new Error(`the build generated no validator for ${domain} ${action}; run npm run build`);
}

function show(text: string): number {
  writeOut(1, text);
  return 0;
}

/** `agentteam exec` or `agentteam exec <domain>` alone: the help, on stderr, as a usage error. */
function showUsage(text: string): number {
  writeOut(2, text);
  return ERROR_TABLE.usage.exit;
}

async function unknown(kind: string, name: string, candidates: string[], see?: string): Promise<number> {
  const { unknownNameMessage } = await import('../exec/suggest.js');
  return usage(unknownNameMessage(kind, name, candidates), see);
}

function usage(message: string, see = 'agentteam exec --help'): number {
  // A usage error is a message only: nothing on stdout, the exit status of the table's `usage` row.
  printMessage(`${message}\nSee \`${see}\`.`);
  return ERROR_TABLE.usage.exit;
}
