import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { agentGet, agentList } from '../../catalog/domains/agent.js';
import { ExecError } from '../errors/exec-error.js';
import { pageLimit, pageOf } from '../store/cursor.js';
import { profileAction, type ProfileActionContext } from './action.js';
import { projectAgent } from '../profile/projection.js';

const KEY = ['string'] as const;

type ListOut = OutputOf<typeof agentList>;
type GetOut = OutputOf<typeof agentGet>;

/**
 * Agents come from the local profile and leave only as the safe projection.
 * The list cursor binds the normalized query and the profile revision, so
 * after any reload a walk must start over instead of skipping or repeating.
 */
async function list(input: InputOf<typeof agentList>, ctx: ProfileActionContext): Promise<ListOut> {
  const query = input.query?.trim().toLowerCase() || undefined;
  const { profile, revision } = ctx.profile;
  const binding = {
    action: 'agent/list',
    scope: 'profile',
    filter: { query, runtime: input.runtime },
    revision,
  };
  const limit = pageLimit(input.limit);
  const after =
    input.cursor === undefined
      ? undefined
      : (ctx.cursors.decode(binding, input.cursor, KEY)[0] as string);
  const matches = profile.agents
    .filter((a) => input.runtime === undefined || a.runtime === input.runtime)
    .filter(
      (a) =>
        query === undefined ||
        a.id.toLowerCase().includes(query) ||
        a.displayName.toLowerCase().includes(query),
    )
    .filter((a) => after === undefined || a.id > after)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const { items, ...more } = pageOf(matches.slice(0, limit + 1), limit, (a) =>
    ctx.cursors.encode(binding, [a.id]),
  );
  return { agents: items.map((a) => projectAgent(a, profile)), ...more };
}

async function get(input: InputOf<typeof agentGet>, ctx: ProfileActionContext): Promise<GetOut> {
  const { profile } = ctx.profile;
  const agent = profile.agents.find((a) => a.id === input.id);
  if (!agent)
    throw new ExecError('not_found', `agent ${input.id} not found`, {
      hint: 'List agents with agent list.',
    });
  return { agent: projectAgent(agent, profile) };
}

export const agentActions = [profileAction(agentList, list), profileAction(agentGet, get)];
