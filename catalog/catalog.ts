import type { ActionDescriptor } from './descriptor.js';
import { actionKey } from './descriptor.js';
import { inventoryOf, type BuiltinAction, type Inventory, type InventoryRow } from './inventory.js';
import { RECEIPT_SELECTORS } from './receipt.js';
import type { CatalogDomain } from './domain.js';
import { taskCatalog } from './domains/task.js';
import { projectCatalog } from './domains/project.js';
import { reviewCatalog } from './domains/review.js';
import { teamCatalog } from './domains/team.js';
import { agentCatalog } from './domains/agent.js';
import { agentAdminCatalog } from './domains/agent-admin.js';
import { scheduledMessageCatalog } from './domains/scheduled-message.js';
import { approvalCatalog } from './domains/approval.js';
import { turnCatalog } from './domains/turn.js';
import { workspaceCatalog } from './domains/workspace.js';
import { workflowCatalog } from './domains/workflow.js';

/** The built-in domains, one line each, in help and inventory order. */
export const BUILTIN_DOMAINS: readonly CatalogDomain[] = [
  taskCatalog,
  projectCatalog,
  reviewCatalog,
  teamCatalog,
  agentCatalog,
  agentAdminCatalog,
  scheduledMessageCatalog,
  approvalCatalog,
  turnCatalog,
  workspaceCatalog,
  workflowCatalog,
];

/** One line per domain for the mixed help index. */
export const DOMAINS: Readonly<Record<string, string>> = Object.assign(
  {},
  ...BUILTIN_DOMAINS.map((d) => d.index),
);

export const BUILTIN_ACTIONS: readonly BuiltinAction[] = BUILTIN_DOMAINS.flatMap((d) => d.actions);

export interface CatalogEntry {
  readonly descriptor: ActionDescriptor;
  readonly inventory: InventoryRow;
}

export interface Catalog {
  readonly entries: ReadonlyMap<string, CatalogEntry>;
  readonly domains: Readonly<Record<string, string>>;
  get(domain: string, action: string): CatalogEntry | undefined;
  actionsOf(domain: string): CatalogEntry[];
}

export class CatalogError extends Error {
  override name = 'CatalogError';
}

/**
 * Joins descriptors with their inventory rows. Fails closed: a descriptor
 * without a row, a row without a descriptor, a duplicate, a risk mismatch or a
 * domain without an index line throws an error naming the action.
 */
export function buildCatalog(
  descriptors: readonly ActionDescriptor[],
  inventory: Inventory,
  domains: Readonly<Record<string, string>> = DOMAINS,
): Catalog {
  const rows = new Map<string, InventoryRow>();
  for (const row of inventory.actions) {
    const key = actionKey(row);
    if (rows.has(key)) throw new CatalogError(`inventory row for action "${key}" appears twice`);
    rows.set(key, row);
  }
  const entries = new Map<string, CatalogEntry>();
  for (const descriptor of descriptors) {
    const key = actionKey(descriptor);
    if (entries.has(key)) throw new CatalogError(`action "${key}" is declared twice`);
    const row = rows.get(key);
    if (!row) throw new CatalogError(`action "${key}" has no row in the action inventory`);
    if (row.risk !== descriptor.risk) {
      throw new CatalogError(
        `action "${key}" has risk "${descriptor.risk}" but its inventory row says "${row.risk}"`,
      );
    }
    if (descriptor.risk === 'side_effect' && !row.receipt) {
      throw new CatalogError(`mutation "${key}" has no receipt policy in the action inventory`);
    }
    const stray = row.receipt?.selectors.find(
      (s) => !(RECEIPT_SELECTORS as readonly string[]).includes(s),
    );
    if (stray !== undefined)
      throw new CatalogError(
        `mutation "${key}" names receipt selector "${stray}", which the error envelope does not allow`,
      );
    if (!Object.hasOwn(domains, descriptor.domain)) {
      throw new CatalogError(
        `action "${key}" belongs to domain "${descriptor.domain}", which has no index line`,
      );
    }
    entries.set(key, { descriptor, inventory: row });
  }
  for (const key of rows.keys()) {
    if (!entries.has(key))
      throw new CatalogError(`inventory row "${key}" names no action in the catalog`);
  }
  return {
    entries,
    domains,
    get: (domain, action) => entries.get(`${domain}/${action}`),
    actionsOf: (domain) => [...entries.values()].filter((e) => e.descriptor.domain === domain),
  };
}

let cached: Catalog | undefined;

/** The inventory of the built-in actions, derived from their descriptors. */
export const BUILTIN_INVENTORY: Inventory = inventoryOf(BUILTIN_ACTIONS);

/** The catalog of a list of domains: descriptors, their derived inventory, the index lines. */
export function catalogOf(domains: readonly CatalogDomain[]): Catalog {
  const actions = domains.flatMap((d) => d.actions);
  return buildCatalog(
    actions,
    inventoryOf(actions),
    Object.assign({}, ...domains.map((d) => d.index)),
  );
}

/** The built-in descriptor catalog (no handlers, no I/O). */
export function defaultCatalog(): Catalog {
  cached ??= catalogOf(BUILTIN_DOMAINS);
  return cached;
}
