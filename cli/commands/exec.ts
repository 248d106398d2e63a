import { readFileSync } from 'node:fs';
import { ERROR_TABLE } from '../../catalog/errors.js';
import { helpFile, loadHelpIndex, NAME_PATTERN, schemaFile } from '../../lib/generated.js';
import { printMessage, writeOut } from '../exec/output.js';

/**
 * `agentteam exec [<domain> [<action> [JSON | -]]]` with --help,
 * --input-schema, --output-schema and --error-schema.
 *
 * Start-up cost decides the shape. Help pages and schemas are files the build
 * rendered, printed with one read; a call loads only its own generated
 * validator. In both cases the file's existence is the proof that the names
 * are valid, so the name index and the suggestions are loaded only for an
 * unknown domain or action, and node:http only once a request is really sent.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [domain, action, input] = args;
  if ((domain !== undefined && !NAME_PATTERN.test(domain)) || (action !== undefined && !NAME_PATTERN.test(action))) {
    return unknownName(domain, action);
  }
  if (opts.errorSchema) {
    if (domain !== undefined) return usage('--error-schema takes no domain or action');
    return print(1, readIfExists(schemaFile('error-envelope')), 0) ?? brokenBuild('error-envelope schema');
  }
  if (opts.help || domain === undefined || action === undefined) {
    // Without --help, `agentteam exec [<domain>]` is incomplete: the page goes to stderr as a usage error.
    const page = readIfExists(helpFile(domain, action));
    return (opts.help ? print(1, page, 0) : print(2, page, ERROR_TABLE.usage.exit)) ?? unknownName(domain, action);
  }
  if (opts.inputSchema && opts.outputSchema) return usage('give either --input-schema or --output-schema, not both');
  if (opts.inputSchema || opts.outputSchema) {
    const kind = opts.inputSchema ? 'input' : 'output';
    return print(1, readIfExists(schemaFile(`${domain}.${action}.${kind}`)), 0) ?? unknownName(domain, action);
  }
  const [{ loadInputValidator }, { call }] = await Promise.all([import('../../lib/input-validators.js'), import('../exec/call.js')]);
  const check = await loadInputValidator(domain, action);
  return check ? call(domain, action, input, check) : unknownName(domain, action);
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Prints `text` and returns `status`, or returns undefined when there is no text. */
function print(fd: 1 | 2, text: string | undefined, status: number): number | undefined {
  if (text === undefined) return undefined;
  writeOut(fd, text);
  return status;
}

/** Names the unknown domain or action and the nearest valid names. */
async function unknownName(domain: string | undefined, action: string | undefined): Promise<number> {
  const { unknownNameMessage } = await import('../exec/suggest.js');
  if (domain === undefined) return brokenBuild('the exec index');
  const index = await loadHelpIndex();
  const d = index.domains.find((x) => x.domain === domain);
  if (!d) return usage(unknownNameMessage('domain', domain, index.domains.map((x) => x.domain)));
  if (action !== undefined && !d.actions.some((x) => x.action === action)) {
    return usage(unknownNameMessage('action', action, d.actions.map((x) => x.action)), `agentteam exec ${domain} --help`);
  }
  return brokenBuild(`${domain} ${action ?? ''}`);
}

/** The index knows the name but the build left no file for it: not a usage error. */
function brokenBuild(what: string): never {
  throw new Error(`the build generated no file for ${what}; run npm run build`);
}

function usage(message: string, see = 'agentteam exec --help'): number {
  // A usage error is a message only: nothing on stdout, the exit status of the table's `usage` row.
  printMessage(`${message}\nSee \`${see}\`.`);
  return ERROR_TABLE.usage.exit;
}
