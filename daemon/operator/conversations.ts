import { profilePerson } from '../profile/person.js';
import type { conversationsList } from '../../catalog/operator/conversations.js';
import type { OperatorOutputOf } from '../../catalog/operator/route.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { Profile } from '../profile/types.js';
import type { ConversationStore } from '../store/conversations.js';

/** Empty DMs (agents with no message yet) listed at most, after the last page. */
const EMPTY_DMS = 100;

type Listed = OperatorOutputOf<typeof conversationsList>['conversations'][number];
const kindOf = (target: string) => target.slice(0, target.indexOf(':')) as Listed['kind'];

/**
 * A person's conversations (catalog/operator/conversations.ts): the store's
 * conversations with unread counts, then, on the last page, a DM with each
 * agent of the profile that has none yet; the person's read mark; and the
 * names the composer may complete (the profile's agents and teams).
 */
export function conversationOperatorHandlers(
  store: ConversationStore,
  profile: () => Profile,
): Pick<OperatorHandlers, 'conversations.list' | 'conversations.read' | 'conversations.names'> {
  return {
    'conversations.list': async ({ query }) => {
      const p = profile();
      const person = query.person ?? profilePerson(p).slice('human:'.length);
      const page = await store.list({
        serverId: query.serverId,
        person: `human:${person}`,
        limit: query.limit !== undefined ? Number(query.limit) : 20,
        cursor: query.cursor,
      });
      const conversations: Listed[] = page.items.map((c) => ({ ...c, kind: kindOf(c.target) }));
      if (!page.hasMore) {
        const dms = p.agents.map((a) => `dm:${a.id}`);
        const seen = await store.existing(query.serverId, dms);
        for (const target of dms.filter((t) => !seen.has(t)).slice(0, EMPTY_DMS))
          conversations.push({
            target,
            kind: 'dm',
            lastMessageAt: null,
            lastAuthor: null,
            unread: 0,
          });
      }
      return {
        person: `human:${person}`,
        conversations,
        hasMore: page.hasMore,
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    },
    'conversations.read': ({ body }) =>
      store.markRead({
        serverId: body.serverId,
        person: body.person ? `human:${body.person}` : profilePerson(profile()),
        target: body.target,
        upTo: body.upTo,
      }),
    'conversations.names': () => {
      const p = profile();
      return {
        person: profilePerson(p),
        agents: p.agents.map((a) => ({ id: a.id, displayName: a.displayName })),
        teams: p.teams.map((t) => ({ handle: t.handle, displayName: t.displayName })),
      };
    },
  };
}
