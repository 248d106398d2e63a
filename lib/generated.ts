import type { HelpIndex } from '../catalog/help.js';

/**
 * Where the build writes its generated files (dist/generated) and how to load
 * the ones read at run time. Every dist subdirectory sits one level below
 * dist, so this resolves the same from the CLI, the daemon and the tests.
 */
export const GENERATED_DIR = new URL('../generated/', import.meta.url);

/** An action's input validator, CommonJS (loaded through lib/input-validators.ts). */
export function validatorFile(domain: string, action: string): URL {
  return new URL(`validators/${domain}.${action}.cjs`, GENERATED_DIR);
}

export function schemaFile(name: string): URL {
  return new URL(`schemas/${name}.json`, GENERATED_DIR);
}

/**
 * A pre-rendered help page: the mixed index, a domain's page or an action's
 * page. Callers pass only names that passed NAME_PATTERN.
 */
export function helpFile(domain?: string, action?: string): URL {
  // "_index" cannot collide with a domain: names have no underscore.
  const name = domain === undefined ? '_index' : action === undefined ? domain : `${domain}.${action}`;
  return new URL(`help/${name}.txt`, GENERATED_DIR);
}

/** Domain and action names are plain lowercase words; nothing else is turned into a path. */
export const NAME_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * The schema-free help index (see catalog/help.ts). The CLI reads it only to
 * suggest names for an unknown domain or action; help pages are plain files.
 */
export async function loadHelpIndex(): Promise<HelpIndex> {
  const mod = (await import(new URL('help-index.js', GENERATED_DIR).href)) as { default: HelpIndex };
  return mod.default;
}
