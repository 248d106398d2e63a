import type { ActionHelp, DomainHelp, HelpIndex } from '../../catalog/help.js';
import { GENERATED_DIR } from '../../lib/generated.js';

/**
 * Loads the schema-free help index the build generated. This, not the
 * catalog, is what the CLI reads on every call: it is one small module with no
 * imports, so help and name lookup cost next to nothing at start-up.
 */
export async function loadHelpIndex(): Promise<HelpIndex> {
  const mod = (await import(new URL('help-index.js', GENERATED_DIR).href)) as { default: HelpIndex };
  return mod.default;
}

export function findDomain(index: HelpIndex, domain: string): DomainHelp | undefined {
  return index.domains.find((d) => d.domain === domain);
}

export function findAction(d: DomainHelp, action: string): ActionHelp | undefined {
  return d.actions.find((a) => a.action === action);
}
