import type { ActionDescriptor } from './descriptor.js';
import { actionKey } from './descriptor.js';
import { inventoryOf, type BuiltinAction, type Inventory, type InventoryRow } from './inventory.js';
import { RECEIPT_SELECTORS } from './receipt.js';
import { taskActions } from './domains/task.js';
import { projectActions } from './domains/project.js';
import { reviewActions } from './domains/review.js';
import { teamActions } from './domains/team.js';
import { agentActions } from './domains/agent.js';
import { scheduledMessageActions } from './domains/scheduled-message.js';
import { approvalActions } from './domains/approval.js';
import { agentAdminActions } from './domains/agent-admin.js';
import { profileActions, workspaceActions } from './domains/workspace.js';
import { workflowActions } from './domains/workflow.js';

/** One line per domain for the mixed help index. */
export const DOMAINS: Readonly<Record<string, string>> = {
  task: 'Create, read, list and update tasks.',
  project: 'Create, read and list projects.',
  review: 'Add and list reviews on a task.',
  team: 'Read the teams of the local profile.',
  agent: 'Configured agents: safe reads, profile edits.',
  'scheduled-message': 'Messages delivered later or on a cron rule.',
  approval: 'Ask a person to approve; read the decision.',
  workspace: 'Where this runtime is bound.',
  profile: 'Local profile summary and revision.',
  workflow: 'Plans, triggers, runs, steps (each with an op).',
};

export const BUILTIN_ACTIONS: readonly BuiltinAction[] = [
  ...taskActions,
  ...projectActions,
  ...reviewActions,
  ...teamActions,
  ...agentActions,
  ...agentAdminActions,
  ...scheduledMessageActions,
  ...approvalActions,
  ...workspaceActions,
  ...profileActions,
  ...workflowActions,
];

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

/** The built-in descriptor catalog (no handlers, no I/O). */
export function defaultCatalog(): Catalog {
  cached ??= buildCatalog(BUILTIN_ACTIONS, BUILTIN_INVENTORY);
  return cached;
}
