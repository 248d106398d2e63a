import type { Catalog } from '../../catalog/catalog.js';
import { PROFILE_ACTIONS } from '../profile-actions/actions.js';
import type { StoreDomain } from '../store/domain.js';
import type { ActionDescriptor } from '../../catalog/descriptor.js';
import { STORE_DOMAINS } from '../domains/list.js';
import { Registry } from './registry.js';

/** The input was validated against the descriptor before the handler; naming its type here would only cost the compiler. */
type UntypedCall = (action: ActionDescriptor, input: unknown) => Promise<unknown>;

/**
 * Builds and seals the registry of every built-in action: the profile's own
 * actions run here, the store domains' actions go to the caller's team
 * server. Throws at start-up on a duplicate, a stray descriptor or a catalog
 * action nobody implements. `domains`: the team server's list (tests add a
 * fixture domain).
 */
export function builtinRegistry(
  catalog: Catalog,
  domains: readonly StoreDomain<unknown>[] = STORE_DOMAINS,
): Registry {
  const r = new Registry(catalog);
  for (const a of PROFILE_ACTIONS) r.register(a.descriptor, a.run);
  for (const d of domains)
    for (const { descriptor } of d.actions)
      r.register(descriptor, (input, ctx) => (ctx.server.call as UntypedCall)(descriptor, input));
  return r.seal();
}
