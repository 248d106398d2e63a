import type { ActionDescriptor, Risk } from './descriptor.js';

/**
 * Continuation guidance a runtime gets when a result exceeds the budget. For
 * reads, `hint` is the action's own sentence and the concrete follow-up call
 * is computed from the caller's input at the boundary (a smaller page from
 * the same position, or the same position one item on); a read row has no
 * `next` template. Mutation rows keep theirs for documentation; what a
 * mutation returns is its receipt.
 */
export interface ResultPolicy {
  readonly hint: string;
  readonly next?: { readonly action: string; readonly input: Readonly<Record<string, unknown>> };
}

/** Which selectors of a mutation's result may appear in a compact receipt. */
export interface ReceiptPolicy {
  readonly entity: string;
  readonly selectors: readonly string[];
  readonly retrieval: string;
  /**
   * Fixed input of the retrieval call (e.g. a workflow `op`); a `<name>` value
   * is filled from the receipt's selector of that name.
   */
  readonly retrievalInput?: Readonly<Record<string, unknown>>;
}

export interface InventoryRow {
  readonly domain: string;
  readonly action: string;
  readonly risk: Risk;
  readonly result: ResultPolicy;
  readonly receipt?: ReceiptPolicy;
}

export interface Inventory {
  readonly version: number;
  readonly actions: readonly InventoryRow[];
}

/** The inventory's format version (the `version` field of the JSON). */
export const INVENTORY_VERSION = 1;

/**
 * A built-in action: its descriptor together with its result policy and, for
 * a mutation, its receipt policy. These are written once, in the action's
 * descriptor (catalog/domains/*.ts); the inventory rows and the published
 * catalog/agentteam-exec-action-inventory.json are derived from them.
 */
export type BuiltinAction = ActionDescriptor & { readonly result: ResultPolicy } & (
    | { readonly risk: 'read'; readonly receipt?: undefined }
    | { readonly risk: 'side_effect'; readonly receipt: ReceiptPolicy }
  );

/** The inventory of built-in actions, one row per action in catalog order. */
export function inventoryOf(actions: readonly BuiltinAction[]): Inventory {
  return {
    version: INVENTORY_VERSION,
    actions: actions.map(
      (a): InventoryRow => ({
        domain: a.domain,
        action: a.action,
        risk: a.risk,
        result: a.result,
        ...(a.receipt !== undefined ? { receipt: a.receipt } : {}),
      }),
    ),
  };
}
