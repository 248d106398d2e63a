import { type ConversationsData, type Listed, titleOf } from '../conversations-read.js';

/** A conversation's page. */
export const conversationHref = (serverId: string, target: string) =>
  `/console/conversation?${new URLSearchParams({ server: serverId, target })}`;

/** "100+" at the cap: the count stops there. */
const unreadText = (n: number) => (n >= 100 ? '100+' : String(n));

function Unread(props: { c: Listed }) {
  return props.c.unread > 0 ? (
    <span class="badge" data-unread={String(props.c.unread)}>
      {unreadText(props.c.unread)}
      <span class="sr"> unread</span>
    </span>
  ) : null;
}

/** The list as links, one a conversation: what the side of a conversation page shows too. */
export function ConversationLinks(props: { data: ConversationsData; current?: string }) {
  const { data } = props;
  if (data.conversations.length === 0)
    return <p class="mute">No conversation yet, and no agent in the profile to write to.</p>;
  return (
    <ul class="convs">
      {data.conversations.map((c) => (
        <li data-target={c.target} data-kind={c.kind}>
          <a
            href={conversationHref(data.serverId, c.target)}
            aria-current={c.target === props.current ? 'page' : undefined}
          >
            <span class="kind">{c.kind}</span> {titleOf(c.target, data.names)}
          </a>{' '}
          <Unread c={c} />
        </li>
      ))}
    </ul>
  );
}

/** Conversations: channels, DMs, threads and task threads, most recent first, with unread counts. */
export function ConversationsBody(props: { data: ConversationsData }) {
  const { data } = props;
  return (
    <>
      <h1>
        Conversations{' '}
        <span class="mute">
          on {data.serverId}, as {data.person}
        </span>
      </h1>
      <div class="scroll" data-region="list">
        <table>
          <thead>
            <tr>
              <th>Conversation</th>
              <th>Kind</th>
              <th class="num">Unread</th>
              <th class="wide">Last from</th>
              <th class="wide">Last message</th>
            </tr>
          </thead>
          <tbody>
            {data.conversations.map((c) => (
              <tr data-target={c.target} data-kind={c.kind}>
                <td>
                  <a href={conversationHref(data.serverId, c.target)}>
                    {titleOf(c.target, data.names)}
                  </a>
                </td>
                <td>{c.kind}</td>
                <td class="num">{c.unread > 0 ? <Unread c={c} /> : '—'}</td>
                <td class="mono wide">{c.lastAuthor ?? '—'}</td>
                <td class="mono wide">{c.lastMessageAt ?? 'none yet'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {data.conversations.length === 0 ? (
          <p class="mute">No conversation yet, and no agent in the profile to write to.</p>
        ) : null}
      </div>
      {data.nextCursor ? (
        <p>
          <a
            href={`/console/conversations?${new URLSearchParams({ server: data.serverId, cursor: data.nextCursor })}`}
          >
            Older conversations
          </a>
        </p>
      ) : null}
    </>
  );
}
