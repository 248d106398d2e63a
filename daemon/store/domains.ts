import type { StoreDomain } from './domain.js';
import { taskDomain } from './tasks.js';
import { projectDomain } from './projects.js';
import { reviewDomain } from './reviews.js';
import { scheduleDomain } from './schedules.js';
import { approvalDomain } from './approvals.js';
import { workflowDomain } from './workflows.js';
import { turnDomain } from './turns.js';

/**
 * The domains the team server implements, one line each. The team server
 * opens them and the Exec registry routes their actions to it; an action
 * listed twice, or a catalog action nobody implements, stops the daemon.
 */
export const STORE_DOMAINS: readonly StoreDomain<unknown>[] = [
  taskDomain,
  projectDomain,
  reviewDomain,
  scheduleDomain,
  approvalDomain,
  workflowDomain,
  turnDomain,
];
