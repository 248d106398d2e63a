import type { BuiltinAction } from './inventory.js';

/**
 * What one catalog domain file contributes: its line(s) of the mixed help
 * index and its actions. The catalog's list of these (BUILTIN_DOMAINS in
 * catalog.ts) is the one place a new domain is added.
 */
export interface CatalogDomain {
  readonly index: Readonly<Record<string, string>>;
  readonly actions: readonly BuiltinAction[];
}

export function catalogDomain(
  index: Readonly<Record<string, string>>,
  actions: readonly BuiltinAction[],
): CatalogDomain {
  return { index, actions };
}
