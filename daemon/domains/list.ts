import type { StoreDomain } from '../store/domain.js';
import type { Migration } from '../store/migrations.js';
import { storeMigrations } from '../store/schema.js';
import { taskDomain } from '../store/tasks.js';
import { projectDomain } from '../store/projects.js';
import { reviewDomain } from '../store/reviews.js';
import { scheduleDomain } from '../store/schedules.js';
import { approvalDomain } from '../store/approvals.js';
import { workflowDomain } from '../workflow/domain.js';
import { turnDomain } from '../store/turns.js';
import { conversationDomain } from '../store/conversations.js';
import { deviceDomain } from '../store/devices.js';
import { delegatedScopeDomain } from '../store/delegated-scopes.js';

/**
 * The domains the team server implements, one line each. The team server
 * opens them and the Exec registry routes their actions to it; an action
 * listed twice, or a catalog action nobody implements, stops the daemon.
 * The list sits above every domain it names (the workflow engine is a
 * floor above the store), so the store takes it as an argument.
 */
export const STORE_DOMAINS: readonly StoreDomain<unknown>[] = [
  taskDomain,
  projectDomain,
  reviewDomain,
  scheduleDomain,
  approvalDomain,
  workflowDomain,
  turnDomain,
  conversationDomain,
  deviceDomain,
  delegatedScopeDomain,
];

/** The schema a store serving STORE_DOMAINS is migrated to: the history, then each listed domain's migrations. */
export const STORE_MIGRATIONS: readonly Migration[] = storeMigrations(STORE_DOMAINS);
