import type { ActionDescriptor, InputOf, OutputOf } from '../../catalog/descriptor.js';
import { actionKey } from '../../catalog/descriptor.js';
import type { Catalog, CatalogEntry } from '../../catalog/catalog.js';
import { loadInputValidator, type InputCheck } from '../../lib/input-validators.js';
import type { HandlerContext } from './context.js';
import { compileInputCheck } from './validate.js';

/** A typed handler: its input and output types are derived from the descriptor's schemas. */
type JsonHandler<D extends ActionDescriptor> = (
  input: InputOf<D>,
  ctx: HandlerContext,
) => Promise<OutputOf<D>>;

/** What the dispatcher needs for one action, after registration. */
export interface RegisteredAction {
  readonly key: string;
  readonly entry: CatalogEntry;
  /** The schema check: the build's standalone validator once loaded, else ajv compiled on first use. */
  check: InputCheck;
  readonly handler: (input: unknown, ctx: HandlerContext) => Promise<unknown>;
}

/**
 * A pinned catalog that can also hand the route actions it holds beyond the
 * built-ins (installed extensions: daemon/extensions/catalog.ts builds one).
 */
export interface ExtensibleCatalog {
  extensionAction?(domain: string, action: string): RegisteredAction | undefined;
}

/** The route's view: a registered action for an extension entry of the pinned catalog, if it is one. */
export function extensionActionOf(
  catalog: Catalog,
  domain: string,
  action: string,
): RegisteredAction | undefined {
  return (catalog as ExtensibleCatalog).extensionAction?.(domain, action);
}

export class RegistryError extends Error {
  override name = 'RegistryError';
}

/**
 * The dispatch table of built-in actions, keyed `domain/action`. Registration
 * fails loudly on a duplicate or on a descriptor the catalog does not know;
 * `seal()` fails on a catalog action that has no handler. Both happen at
 * daemon start, never at request time.
 */
export class Registry {
  private readonly actions = new Map<string, RegisteredAction>();
  private sealed = false;

  constructor(readonly catalog: Catalog) {}

  registerJSON<D extends ActionDescriptor>(descriptor: D, handler: NoInfer<JsonHandler<D>>): void {
    this.register(descriptor, handler as unknown as RegisteredAction['handler']);
  }

  /**
   * Registers a handler already typed against its descriptor where it was
   * declared (a store domain's or a profile action's helper).
   */
  register(descriptor: ActionDescriptor, handler: RegisteredAction['handler']): void {
    const key = actionKey(descriptor);
    if (this.sealed) throw new RegistryError(`cannot register "${key}": the registry is sealed`);
    if (this.actions.has(key)) throw new RegistryError(`action "${key}" has two handlers`);
    const entry = this.catalog.entries.get(key);
    if (!entry) throw new RegistryError(`handler for "${key}" has no descriptor in the catalog`);
    if (entry.descriptor !== descriptor)
      throw new RegistryError(
        `handler for "${key}" was registered against a different descriptor than the catalog's`,
      );
    this.actions.set(key, { key, entry, check: lazyCheck(descriptor), handler });
  }

  /** Ends registration; every catalog action must have a handler by now. */
  seal(): this {
    const missing = [...this.catalog.entries.keys()].filter((k) => !this.actions.has(k));
    if (missing.length > 0)
      throw new RegistryError(
        `no handler registered for ${missing.map((k) => `"${k}"`).join(', ')}`,
      );
    this.sealed = true;
    return this;
  }

  /**
   * Switches every action to the validator the build generated (the same code
   * the CLI runs), where one exists; the others keep the ajv fallback.
   * Returns the keys still on the fallback.
   */
  async useGeneratedValidators(): Promise<string[]> {
    const fallback: string[] = [];
    for (const a of this.actions.values()) {
      const generated = await loadInputValidator(
        a.entry.descriptor.domain,
        a.entry.descriptor.action,
      );
      if (generated) a.check = generated;
      else fallback.push(a.key);
    }
    return fallback;
  }

  get(domain: string, action: string): RegisteredAction | undefined {
    return this.actions.get(`${domain}/${action}`);
  }
}

/** Compiles on first use, so a daemon that loads generated validators never pays for ajv compilation. */
function lazyCheck(d: ActionDescriptor): InputCheck {
  let compiled: InputCheck | undefined;
  return (input) => {
    compiled ??= compileInputCheck(d);
    return compiled(input);
  };
}
