import type { ActionDescriptor, InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { StoreContext } from './context.js';
import type { Migration } from './migrations.js';
import type { Caller } from './server-api.js';

/** One catalog action a store domain implements; its types come from the descriptor. */
interface StoreAction<S> {
  readonly descriptor: ActionDescriptor;
  // A method, so a list of domains of different state types can be held as StoreDomain<unknown>.
  run(s: S, c: Caller, input: unknown): Promise<unknown>;
}

/** Pairs a descriptor with its implementation; `input` and the result are the descriptor's types. */
type Implement<S> = <D extends ActionDescriptor>(
  descriptor: D,
  run: NoInfer<(s: S, c: Caller, input: InputOf<D>) => Promise<OutputOf<D>>>,
) => StoreAction<S>;

/** Opens another domain of the same team server (one instance per server and domain). */
type Use = <T>(domain: StoreDomain<T>) => T;

/**
 * A domain of the team server: how its state opens over the shared store
 * context, and the catalog actions it implements. The team server and the
 * Exec registry both iterate the list of these (daemon/domains/list.ts).
 */
export interface StoreDomain<S> {
  readonly open: (ctx: StoreContext, use: Use) => S;
  readonly actions: readonly StoreAction<S>[];
  /** Its tables: appended to the store's schema history in list order (store/schema.ts). */
  readonly migrations: readonly Migration[];
}

const implement = ((descriptor: ActionDescriptor, run: StoreAction<unknown>['run']) => ({
  descriptor,
  run,
})) as unknown as Implement<unknown>;

/**
 * Declares a store domain next to its SQL (the domains that shipped before
 * this helper keep their tables in the schema history; a new one passes its
 * migrations here):
 * `storeDomain((ctx) => new TaskStore(ctx), (on) => [on(taskCreate, (s, c, i) => s.create(c, i))])`.
 */
export function storeDomain<S>(
  open: (ctx: StoreContext, use: Use) => S,
  actions: (implement: Implement<S>) => readonly StoreAction<S>[],
  migrations: readonly Migration[] = [],
): StoreDomain<S> {
  return { open, actions: actions(implement as unknown as Implement<S>), migrations };
}
