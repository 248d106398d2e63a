import { profileGet, workspaceGet } from '../../catalog/domains/workspace.js';
import { projectAgent } from '../profile/projection.js';
import { profileAction } from './action.js';

/** Where the calling runtime is bound, and a summary of the local profile. */
export const workspaceActions = [
  profileAction(workspaceGet, async (_input, ctx) => {
    const p = ctx.principal;
    const teams = ctx.profile.profile.teams
      .filter((t) => t.members.some((m) => m.kind === 'agent' && m.handle === p.agentId))
      .map((t) => ({ teamId: t.teamId, handle: t.handle, displayName: t.displayName }));
    return {
      workspace: {
        serverId: p.serverId,
        agentId: p.agentId,
        sessionId: p.sessionId,
        runId: p.runId,
        workdirSet: p.workdir !== null,
        teams,
      },
    };
  }),

  profileAction(profileGet, async (_input, ctx) => {
    const { profile, revision } = ctx.profile;
    const self = profile.agents.find((a) => a.id === ctx.principal.agentId);
    return {
      profile: {
        revision,
        agentCount: profile.agents.length,
        teamCount: profile.teams.length,
        self: self ? projectAgent(self, profile) : null,
      },
    };
  }),
];
