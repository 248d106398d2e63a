import type { Risk } from './descriptor.js';

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
