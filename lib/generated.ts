import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HelpIndex } from '../catalog/help.js';

/**
 * Where the build writes its generated files (dist/generated) and how to load
 * the ones read at run time. Every dist subdirectory sits one level below
 * dist, so this resolves the same from the CLI, the daemon and the tests.
 * Plain paths, not file URLs: in the CLI's CommonJS bundle import.meta.dirname
 * is __dirname (scripts/gen/bundle.ts), so the hot path does no URL work.
 */
const HERE = import.meta.dirname ?? dirname(fileURLToPath(import.meta.url));
const GENERATED_DIR = join(HERE, '..', 'generated');

/** An action's input validator, CommonJS (loaded through lib/input-validators.ts). */
export function validatorFile(domain: string, action: string): string {
  return join(GENERATED_DIR, 'validators', `${domain}.${action}.cjs`);
}

/** Receipt policies of the mutations, with their retrieval actions' required inputs (scripts/gen/artifacts.ts). */
export const RECEIPT_POLICIES_FILE = join(GENERATED_DIR, 'receipt-policies.json');

/** The names of the built-in MCP tools (catalog/mcp-tools.ts), for exec's hint when one is called as an action. */
export const MCP_TOOL_NAMES_FILE = join(GENERATED_DIR, 'mcp-tool-names.json');

/** The operator read and write commands (catalog/operator-reads.ts, operator-writes.ts), read by cli/program.ts to declare them. */
export const OPERATOR_COMMANDS_FILE = join(GENERATED_DIR, 'operator-commands.json');

/** The operator API's input validators (catalog/operator/), one CommonJS module keyed `<row>.<part>`. */
export const OPERATOR_VALIDATORS_FILE = join(GENERATED_DIR, 'operator-validators.cjs');

/** Validators of the CLI↔daemon wire shapes outside the rows (catalog/operator/stdio-call.ts), CommonJS. */
export const WIRE_VALIDATORS_FILE = join(GENERATED_DIR, 'wire-validators.cjs');

export function schemaFile(name: string): string {
  return join(GENERATED_DIR, 'schemas', `${name}.json`);
}

/**
 * A pre-rendered help page: the mixed index, a domain's page or an action's
 * page. Callers pass only names that passed NAME_PATTERN.
 */
export function helpFile(domain?: string, action?: string): string {
  // "_index" cannot collide with a domain: names have no underscore.
  const name =
    domain === undefined ? '_index' : action === undefined ? domain : `${domain}.${action}`;
  return join(GENERATED_DIR, 'help', `${name}.txt`);
}

/** Domain and action names are plain lowercase words; nothing else is turned into a path. */
export const NAME_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * The schema-free help index (see catalog/help.ts), a JSON file. The CLI
 * reads it only to suggest names for an unknown domain or action; help pages
 * are plain files.
 */
export async function loadHelpIndex(): Promise<HelpIndex> {
  return JSON.parse(readFileSync(join(GENERATED_DIR, 'help-index.json'), 'utf8')) as HelpIndex;
}
