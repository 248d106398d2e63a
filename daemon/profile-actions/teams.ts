import { teamGet, teamList } from '../../catalog/domains/team.js';
import { ExecError } from '../errors/exec-error.js';
import { pageLimit, pageOf } from '../store/cursor.js';
import { profileAction } from './action.js';
import type { TeamConfig } from '../profile/types.js';

const KEY = ['string', 'string', 'string'] as const;

function keyOf(t: TeamConfig): [string, string, string] {
  return [t.displayName, t.handle, t.teamId];
}

/** Code-unit order, not locale order: the same on every machine, so cursors stay valid. */
function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

const view = (t: TeamConfig) => ({
  teamId: t.teamId,
  handle: t.handle,
  displayName: t.displayName,
  members: t.members.map((m) => ({ kind: m.kind, handle: m.handle })),
});

/**
 * Teams come from the local profile. The keyset (displayName, handle, teamId)
 * is made of the values themselves, so a cursor stays meaningful across a
 * profile reload and needs no revision binding.
 */
export const teamActions = [
  profileAction(teamList, async (input, ctx) => {
    const binding = { action: 'team/list', scope: 'profile', filter: {} };
    const limit = pageLimit(input.limit);
    const after =
      input.cursor === undefined ? undefined : ctx.cursors.decode(binding, input.cursor, KEY);
    const sorted = [...ctx.profile.profile.teams].sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
    const rest =
      after === undefined ? sorted : sorted.filter((t) => compareKeys(keyOf(t), after) > 0);
    const { items, ...more } = pageOf(rest.slice(0, limit + 1), limit, (t) =>
      ctx.cursors.encode(binding, keyOf(t)),
    );
    return { teams: items.map(view), ...more };
  }),

  profileAction(teamGet, async (input, ctx) => {
    const team = ctx.profile.profile.teams.find((t) => t.teamId === input.teamId);
    if (!team)
      throw new ExecError('not_found', `team ${input.teamId} not found`, {
        hint: 'List teams with team list.',
      });
    return { team: view(team) };
  }),
];
