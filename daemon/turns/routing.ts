import type { Profile } from '../profile/types.js';
import type { TurnLookup } from '../store/turn-lookup.js';

/** A stored message, as routing reads it. */
interface Routed {
  readonly serverId: string;
  readonly target: string;
  readonly author: string;
  readonly content: string;
}

/** `@name` where the name is not glued to a word before it (an e-mail address is no mention). */
const MENTION = /(?:^|[^A-Za-z0-9_.@-])@([A-Za-z0-9][A-Za-z0-9_.-]{0,63})/g;

/** The names a text mentions, in order, each once (a trailing dot is punctuation). */
function mentions(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(MENTION)) out.add(m[1]!.replace(/[.]+$/, ''));
  return [...out];
}

/** The profile agents `names` reach: an agent by its id, a team by its handle (its agent members). */
function reached(names: readonly string[], profile: Profile): string[] {
  const agents = new Set(profile.agents.map((a) => a.id));
  const out: string[] = [];
  for (const n of names) {
    if (agents.has(n)) out.push(n);
    for (const t of profile.teams)
      if (t.handle === n)
        for (const m of t.members)
          if (m.kind === 'agent' && agents.has(m.handle)) out.push(m.handle);
  }
  return out;
}

/** How many answering agents of one thread are looked at. */
const THREAD_AUTHORS = 64;

/**
 * The agents of this daemon's profile a message is for, each once, in the
 * order they are named. Only a person's message (`human:` author) reaches
 * anyone: an agent's own message never starts a turn, so agents cannot
 * keep each other busy.
 *
 * - `dm:<agent>`: that agent.
 * - `channel:<name>`: each `@<agent>`, and the agent members of each `@<team handle>`.
 * - `thread:<root>`: the mentions of the message and of the root, the root's
 *   author when it is an agent, and the agents who already wrote in the thread.
 * - `task:<id>`: the task's assignee (`<agent>` or `agent:<agent>`), and the mentions.
 */
export async function addressees(
  m: Routed,
  profile: Profile,
  lookup: TurnLookup,
): Promise<string[]> {
  if (!m.author.startsWith('human:')) return [];
  const colon = m.target.indexOf(':');
  const kind = m.target.slice(0, colon);
  const rest = m.target.slice(colon + 1);
  const found: string[] = [];
  if (kind === 'dm') {
    found.push(...reached([rest], profile).filter((a) => a === rest));
  } else if (kind === 'channel') {
    found.push(...reached(mentions(m.content), profile));
  } else if (kind === 'thread') {
    found.push(...reached(mentions(m.content), profile));
    const root = await lookup.message(m.serverId, rest);
    if (root) {
      found.push(...reached(mentions(root.content), profile));
      if (root.author.startsWith('agent:')) found.push(...reached([root.author.slice(6)], profile));
    }
    const answered = await lookup.agentAuthors(m.serverId, m.target, THREAD_AUTHORS);
    found.push(
      ...reached(
        answered.map((a) => a.slice(6)),
        profile,
      ),
    );
  } else if (kind === 'task') {
    const assignee = await lookup.taskAssignee(m.serverId, rest);
    if (assignee !== null) {
      const id = assignee.startsWith('agent:') ? assignee.slice(6) : assignee;
      found.push(...reached([id], profile).filter((a) => a === id));
    }
    found.push(...reached(mentions(m.content), profile));
  }
  return [...new Set(found)];
}
