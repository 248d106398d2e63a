import type { HelpIndex } from '../catalog/help.js';

/**
 * Where the build writes its generated files (dist/generated) and how to load
 * the ones read at run time. Every dist subdirectory sits one level below
 * dist, so this resolves the same from the CLI, the daemon and the tests. The
 * validators are resolved by lib/input-validators.ts itself.
 */
export const GENERATED_DIR = new URL('../generated/', import.meta.url);

export function schemaFile(name: string): URL {
  return new URL(`schemas/${name}.json`, GENERATED_DIR);
}

/**
 * The schema-free help index (see catalog/help.ts). The CLI reads this, not
 * the catalog: one small module with no imports.
 */
export async function loadHelpIndex(): Promise<HelpIndex> {
  const mod = (await import(new URL('help-index.js', GENERATED_DIR).href)) as { default: HelpIndex };
  return mod.default;
}
