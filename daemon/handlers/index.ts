import type { Catalog } from '../../catalog/catalog.js';
import { Registry } from '../exec/registry.js';
import { registerTaskHandlers } from './task.js';
import { registerProjectHandlers } from './project.js';
import { registerReviewHandlers } from './review.js';
import { registerTeamHandlers } from './team.js';
import { registerAgentHandlers } from './agent.js';
import { registerScheduledMessageHandlers } from './scheduled-message.js';
import { registerApprovalHandlers } from './approval.js';
import { registerAgentAdminHandlers } from './agent-admin.js';
import { registerWorkflowHandlers } from './workflow.js';

/** Builds and seals the registry of every built-in action; throws at start-up if one is missing. */
export function builtinRegistry(catalog: Catalog): Registry {
  const r = new Registry(catalog);
  registerTaskHandlers(r);
  registerProjectHandlers(r);
  registerReviewHandlers(r);
  registerTeamHandlers(r);
  registerAgentHandlers(r);
  registerScheduledMessageHandlers(r);
  registerApprovalHandlers(r);
  registerAgentAdminHandlers(r);
  registerWorkflowHandlers(r);
  return r.seal();
}
