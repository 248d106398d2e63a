import type { ActionDescriptor } from '../../catalog/descriptor.js';
import {
  BUILTIN_ACTIONS,
  BUILTIN_INVENTORY,
  DOMAINS,
  buildCatalog,
  type Catalog,
} from '../../catalog/catalog.js';
import { extensionInventoryRow, type ExtensionDefinition } from '../../catalog/extension.js';
import type { ExtensibleCatalog, RegisteredAction } from '../exec/registry.js';
import { compileInputCheck } from '../exec/validate.js';
import { forwardToUpstream, type PinnedExtension } from './forward.js';

export interface InstalledExtension {
  readonly definition: ExtensionDefinition;
  readonly digest: string;
}

/**
 * The runtime catalog: built-ins plus the installed extensions, immutable.
 * Extension actions are descriptor-only entries; `extensionAction` gives the
 * route a registered action whose handler forwards to the pinned upstream.
 */
export interface RuntimeCatalog extends Catalog, ExtensibleCatalog {
  readonly catalogVersion: string;
  extensionAction(domain: string, action: string): RegisteredAction | undefined;
}

export function buildRuntimeCatalog(
  installed: readonly InstalledExtension[],
  catalogVersion: string,
): RuntimeCatalog {
  const descriptors: ActionDescriptor[] = [...BUILTIN_ACTIONS];
  const rows = [...BUILTIN_INVENTORY.actions];
  const domains: Record<string, string> = { ...DOMAINS };
  const pinned = new Map<string, PinnedExtension>();
  for (const { definition: d, digest } of installed) {
    descriptors.push(...d.actions);
    rows.push(...d.actions.map(extensionInventoryRow));
    domains[d.name] = d.description;
    pinned.set(d.name, { name: d.name, upstream: d.upstream, digest, catalogVersion });
  }
  const base = buildCatalog(
    descriptors,
    { version: BUILTIN_INVENTORY.version, actions: rows },
    domains,
  );
  const actions = new Map<string, RegisteredAction>();
  return {
    ...base,
    catalogVersion,
    extensionAction(domain, action) {
      const ext = pinned.get(domain);
      const entry = base.get(domain, action);
      if (!ext || !entry) return undefined;
      const key = `${domain}/${action}`;
      let a = actions.get(key);
      if (!a) {
        const output = compileInputCheck({ ...entry.descriptor, input: entry.descriptor.output });
        a = {
          key,
          entry,
          check: compileInputCheck(entry.descriptor),
          handler: (input, ctx) => forwardToUpstream(ext, action, input, ctx.signal, output),
        };
        actions.set(key, a);
      }
      return a;
    },
  };
}
