import type { InputOf } from '../../catalog/descriptor.js';
import { agentCreate, agentDelete, agentUpdate } from '../../catalog/domains/agent-admin.js';
import { ExecError } from '../errors/exec-error.js';
import { profileAction, type ProfileActionContext } from './action.js';
import { editProfile, type RawProfile } from '../profile/profile-edit.js';
import { projectAgent } from '../profile/projection.js';

function agentsOf(doc: RawProfile): Record<string, unknown>[] {
  if (doc.agents === undefined) doc.agents = [];
  if (!Array.isArray(doc.agents))
    throw new ExecError('validation_failed', 'profile.json agents is not an array');
  return doc.agents;
}

function viewOf(ctx: ProfileActionContext, id: string) {
  const { profile } = ctx.profile;
  const a = profile.agents.find((x) => x.id === id);
  if (!a) throw new ExecError('internal', 'the edited agent is missing after reload');
  return projectAgent(a, profile);
}

/** Only fields given are written; null clears an optional field. */
function applyFields(entry: Record<string, unknown>, input: InputOf<typeof agentUpdate>): void {
  for (const key of ['displayName', 'runtime', 'model', 'baseUrl', 'apiKeyEnv'] as const) {
    const v = input[key];
    if (v === undefined) continue;
    if (v === null) delete entry[key];
    else entry[key] = v;
  }
  if (input.launch) {
    const current = entry.launch;
    const launch =
      current && typeof current === 'object' && !Array.isArray(current)
        ? (current as Record<string, unknown>)
        : {};
    entry.launch = { ...launch, ...input.launch };
  }
}

export const agentAdminActions = [
  profileAction(
    agentCreate,
    async (input, ctx) =>
      await ctx.server.idempotent('agent/create', input, () => {
        const revision = editProfile(ctx.profile, input.expectedRevision, (doc) => {
          const agents = agentsOf(doc);
          if (agents.some((a) => a?.id === input.id))
            throw new ExecError('already_exists', `agent ${input.id} already exists`, {
              hint: 'Change it with agent update.',
            });
          const entry: Record<string, unknown> = { id: input.id };
          applyFields(entry, input);
          agents.push(entry);
        });
        return { agent: viewOf(ctx, input.id), revision };
      }),
  ),

  profileAction(
    agentUpdate,
    async (input, ctx) =>
      await ctx.server.idempotent('agent/update', input, () => {
        const revision = editProfile(ctx.profile, input.expectedRevision, (doc) => {
          const entry = agentsOf(doc).find((a) => a?.id === input.id);
          if (!entry)
            throw new ExecError('not_found', `agent ${input.id} not found`, {
              hint: 'List agents with agent list.',
            });
          applyFields(entry, input);
        });
        return { agent: viewOf(ctx, input.id), revision };
      }),
  ),

  profileAction(
    agentDelete,
    async (input, ctx) =>
      await ctx.server.idempotent('agent/delete', input, () => {
        const revision = editProfile(ctx.profile, input.expectedRevision, (doc) => {
          const agents = agentsOf(doc);
          const at = agents.findIndex((a) => a?.id === input.id);
          if (at < 0)
            throw new ExecError('not_found', `agent ${input.id} not found`, {
              hint: 'List agents with agent list.',
            });
          agents.splice(at, 1);
          for (const team of Array.isArray(doc.teams) ? doc.teams : []) {
            const members = (team as { members?: unknown }).members;
            if (Array.isArray(members)) {
              (team as { members: unknown[] }).members = members.filter(
                (m) =>
                  !(
                    m &&
                    (m as Record<string, unknown>).kind === 'agent' &&
                    (m as Record<string, unknown>).handle === input.id
                  ),
              );
            }
          }
        });
        return { deleted: { id: input.id }, revision };
      }),
  ),
];
