import { readFileSync } from 'node:fs';
import { ERROR_TABLE } from '../../catalog/errors.js';
import {
  helpFile,
  loadHelpIndex,
  MCP_TOOL_NAMES_FILE,
  NAME_PATTERN,
  schemaFile,
} from '../../lib/generated.js';
import { printError, printMessage, writeOut } from '../exec/output.js';

/**
 * `agentteam exec [<domain> [<action> [JSON | -]]]` with --help,
 * --input-schema, --output-schema and --error-schema.
 *
 * Start-up cost decides the shape. Help pages and schemas are files the build
 * rendered, printed with one read; a call loads only its own generated
 * validator. In both cases the file's existence is the proof that the names
 * are valid, so the name index and the suggestions are loaded only for an
 * unknown domain or action, and node:net only once a request is really sent.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [domain, action, input] = args;
  if (
    (domain !== undefined && !NAME_PATTERN.test(domain)) ||
    (action !== undefined && !NAME_PATTERN.test(action))
  ) {
    return unknownName(domain, action);
  }
  if (opts.errorSchema) {
    if (domain !== undefined) return usage('--error-schema takes no domain or action');
    return (
      print(1, readIfExists(schemaFile('error-envelope')), 0) ??
      brokenBuild('error-envelope schema')
    );
  }
  if (opts.help || domain === undefined || action === undefined) {
    // Without --help, `agentteam exec [<domain>]` is incomplete: the page goes to stderr as a usage error.
    let page =
      readIfExists(helpFile(domain, action)) ??
      (domain !== undefined ? await extensionHelp(domain, action) : undefined);
    if (page !== undefined && domain === undefined && opts.help) page += await extensionIndex();
    if (opts.help) return print(1, page, 0) ?? unknownName(domain, action);
    if (page === undefined) return unknownName(domain, action);
    print(2, page, ERROR_TABLE.usage.exit);
    return printError({
      code: 'usage',
      message:
        domain === undefined
          ? 'exec needs a domain and an action'
          : `exec ${domain} needs an action`,
      hint: 'The list of what there is was printed on stderr.',
    });
  }
  if (opts.inputSchema && opts.outputSchema)
    return usage('give either --input-schema or --output-schema, not both');
  if (opts.inputSchema || opts.outputSchema) {
    const kind = opts.inputSchema ? 'input' : 'output';
    const schema =
      readIfExists(schemaFile(`${domain}.${action}.${kind}`)) ??
      (await extensionSchema(domain, action, kind));
    return print(1, schema, 0) ?? unknownName(domain, action);
  }
  const [{ loadInputValidator }, { call }] = await Promise.all([
    import('../../lib/input-validators.js'),
    import('../exec/call.js'),
  ]);
  const check = await loadInputValidator(domain, action);
  if (check) return call(domain, action, input, check);
  // An extension action of the pinned catalog: the daemon validates it (the build has no validator for it).
  const { remoteAction } = await import('../exec/remote-catalog.js');
  if (await remoteAction(domain, action)) return call(domain, action, input, () => ({ ok: true }));
  return unknownName(domain, action);
}

/**
 * Installed extensions, appended to `exec --help`: inside a runtime those of
 * its pinned catalog; outside, those of the running daemon (none without one).
 */
async function extensionIndex(): Promise<string> {
  const { remoteExtensionDomains, catalogSource } = await import('../exec/remote-catalog.js');
  const domains = await remoteExtensionDomains(
    new Set((await loadHelpIndex()).domains.map((d) => d.domain)),
  );
  if (domains.length === 0) return '';
  const width = Math.max(...domains.map((d) => d.domain.length));
  const lines = domains.map(
    (d) => `  ${d.domain.padEnd(width)}  ${d.line} (${d.actions.map((a) => a.action).join(', ')})`,
  );
  const where =
    catalogSource() === 'runtime'
      ? 'for this runtime'
      : 'in the daemon (runtimes started from now on can call them)';
  return `\nExtensions installed ${where} (agentteam exec <extension> --help):\n${lines.join('\n')}\n`;
}

/** Help for an extension domain or action, from the runtime's pinned catalog; undefined outside a runtime. */
async function extensionHelp(
  domain: string,
  action: string | undefined,
): Promise<string | undefined> {
  const [{ remoteDomain, helpOf, remoteAction }, { renderActionHelp, renderDomainHelp }] =
    await Promise.all([import('../exec/remote-catalog.js'), import('../../catalog/help.js')]);
  if (action === undefined) {
    const d = await remoteDomain(domain);
    return d && renderDomainHelp(d);
  }
  const a = await remoteAction(domain, action);
  return a && renderActionHelp(domain, helpOf(a));
}

async function extensionSchema(
  domain: string,
  action: string,
  kind: 'input' | 'output',
): Promise<string | undefined> {
  const { remoteAction } = await import('../exec/remote-catalog.js');
  const a = await remoteAction(domain, action);
  if (!a) return undefined;
  const { JSON_SCHEMA_DIALECT } = await import('../../catalog/schemas.js');
  return `${JSON.stringify({ $schema: JSON_SCHEMA_DIALECT, ...(kind === 'input' ? a.inputSchema : a.outputSchema) }, null, 2)}\n`;
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
async function unknownName(
  domain: string | undefined,
  action: string | undefined,
): Promise<number> {
  const { unknownNameMessage } = await import('../exec/suggest.js');
  if (domain === undefined) return brokenBuild('the exec index');
  const index = await loadHelpIndex();
  const d = index.domains.find((x) => x.domain === domain);
  if (!d)
    return usage(
      unknownNameMessage(
        'domain',
        domain,
        index.domains.map((x) => x.domain),
      ),
      undefined,
      mcpToolHint(domain, action),
    );
  if (action !== undefined && !d.actions.some((x) => x.action === action)) {
    return usage(
      unknownNameMessage(
        'action',
        action,
        d.actions.map((x) => x.action),
      ),
      `agentteam exec ${domain} --help`,
      mcpToolHint(domain, action),
    );
  }
  return brokenBuild(`${domain} ${action ?? ''}`);
}

/** The index knows the name but the build left no file for it: not a usage error. */
function brokenBuild(what: string): never {
  throw new Error(`the build generated no file for ${what}; run npm run build`);
}

function usage(message: string, see = 'agentteam exec --help', hint = `See \`${see}\`.`): number {
  // Like every refusal, a usage error is the error envelope on stdout (for the agent's tool output) and a message on stderr.
  printMessage(`${message}\n${hint}`);
  return printError({ code: 'usage', message, hint });
}

/**
 * Messages, memory and knowledge are MCP tools, not Exec actions; an agent
 * that guesses `exec message send` is told so, and where the MCP server is.
 * A name matches when `domain_action` is a tool's name, or the domain is the
 * first word of one (`exec memory`); otherwise the hint stays the help pointer.
 */
function mcpToolHint(domain: string, action: string | undefined): string | undefined {
  let tools: string[];
  try {
    tools = JSON.parse(readFileSync(MCP_TOOL_NAMES_FILE, 'utf8')) as string[];
  } catch {
    return undefined;
  }
  const wanted = action === undefined ? undefined : `${domain}_${action.replace(/-/g, '_')}`;
  const exact = tools.find((t) => t === wanted);
  const related = tools.filter((t) => t.startsWith(`${domain}_`));
  if (!exact && related.length === 0) return undefined;
  const names = exact ? [exact] : related;
  const named =
    names.length === 1
      ? `\`${names[0]}\` is an MCP tool, not an \`agentteam exec\` action`
      : `${names.map((t) => `\`${t}\``).join(', ')} are MCP tools, not \`agentteam exec\` actions`;
  return `${named}: call MCP tools through the MCP server "agentteam" (your runtime lists them as mcp__agentteam__<tool> or mcp_agentteam_<tool>; its endpoint is the URL in AGENTTEAM_MCP_URL). MCP tools: ${tools.join(', ')}. Exec actions: \`agentteam exec --help\`.`;
}
