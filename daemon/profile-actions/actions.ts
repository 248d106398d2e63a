import type { ProfileAction } from './action.js';
import { teamActions } from './teams.js';
import { agentActions } from './agents.js';
import { agentAdminActions } from './agent-admin.js';
import { workspaceActions } from './workspace.js';

/** The actions the daemon answers from its local profile (everything else is the team server's). */
export const PROFILE_ACTIONS: readonly ProfileAction[] = [
  ...teamActions,
  ...agentActions,
  ...agentAdminActions,
  ...workspaceActions,
];
