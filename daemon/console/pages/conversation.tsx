import type { AuditEntry } from '../../../catalog/audit.js';
import { LIMITS } from '../../../catalog/limits.js';
import { type ConversationData, type ConversationsData, titleOf } from '../conversations-read.js';
import { Csrf } from '../layout.js';
import type { TurnView } from '../turns-read.js';
import { ConversationLinks, conversationHref } from './conversations.js';
import { Since } from './turns.js';

const turnHref = (serverId: string, id: string) =>
  `/console/turn?${new URLSearchParams({ server: serverId, id })}`;

/** What a turn is doing, in words; the clock of a waiting or running turn runs on the page. */
function TurnState(props: { t: TurnView }) {
  const t = props.t;
  switch (t.state) {
    case 'queued':
      return (
        <>
          queued, waiting <Since at={t.createdAt} />
        </>
      );
    case 'running':
      return (
        <>
          running <Since at={t.startedAt ?? t.createdAt} />
        </>
      );
    case 'succeeded':
      return <>{t.replied === false ? 'ended without a reply' : 'answered'}</>;
    default:
      return (
        <span class="bad">
          {t.state}
          {t.error ? `: ${t.error}` : ''}
          {t.errorDetail ? ` (${t.errorDetail})` : ''}
        </span>
      );
  }
}

/** A turn's calls, folded: each opens its audit row. */
function Calls(props: { fold: string; calls: readonly AuditEntry[] | undefined; label: string }) {
  const calls = props.calls;
  if (!calls || calls.length === 0) return null;
  return (
    <details data-fold={props.fold}>
      <summary>
        {props.label} ({calls.length})
      </summary>
      <ul class="calls">
        {[...calls].reverse().map((e) => (
          <li data-seq={String(e.seq)} data-tool={e.tool}>
            <a href={`/console/activity/${e.seq}`} class="mono">
              {e.tool}
            </a>{' '}
            <span class={e.outcome === 'ok' ? 'ok' : 'bad'}>{e.outcome}</span>{' '}
            <span class="mute">{e.durationMs.toFixed(0)} ms</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The turn an agent's message was written in: that agent's turn on this target running at that time. */
function turnOfReply(turns: readonly TurnView[], author: string, at: string): TurnView | undefined {
  if (!author.startsWith('agent:')) return undefined;
  const agent = author.slice(6);
  return turns.find(
    (t) =>
      t.agentId === agent &&
      t.startedAt !== null &&
      t.startedAt <= at &&
      (t.finishedAt === null || at <= t.finishedAt),
  );
}

function History(props: { data: ConversationData }) {
  const { data } = props;
  if (data.messages.length === 0) return <p class="mute">No message yet. Write the first below.</p>;
  return (
    <ol class="msgs" aria-label="Messages, oldest first">
      {data.messages.map((m) => {
        const started = data.turns.filter((t) => t.messageIds.includes(m.id)).reverse();
        const during = turnOfReply(data.turns, m.author, m.createdAt);
        const mine = m.author === data.person;
        return (
          <li data-message={m.id} data-author={m.author} class={mine ? 'msg mine' : 'msg'}>
            <p class="meta">
              <b>{m.author}</b> <time datetime={m.createdAt}>{m.createdAt.slice(0, 19)}</time>
              {m.replyTo ? <span class="mute"> · replying to {m.replyTo}</span> : null}
              {data.target.startsWith('thread:') ? null : (
                <>
                  {' · '}
                  <a href={conversationHref(data.serverId, `thread:${m.id}`)}>thread</a>
                </>
              )}
            </p>
            <p class="text">{m.content}</p>
            {started.length > 0 ? (
              <ul class="turns" aria-label="Turns this message started">
                {started.map((t) => (
                  <li data-turn={t.id} data-state={t.state} data-agent={t.agentId}>
                    <a href={turnHref(data.serverId, t.id)}>{t.agentId}</a>: <TurnState t={t} />
                    <Calls fold={`calls-${t.id}`} calls={data.calls.get(t.id)} label="tool calls" />
                  </li>
                ))}
              </ul>
            ) : null}
            {during ? (
              <p class="meta" data-reply-turn={during.id}>
                written in <a href={turnHref(data.serverId, during.id)}>turn {during.id}</a>
                <Calls
                  fold={`audit-${m.id}`}
                  calls={data.calls.get(during.id)}
                  label="its audit rows"
                />
              </p>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}

/** Where the person writes: a plain form (the script sends it without leaving the page and completes @mentions). */
function Composer(props: { data: ConversationData; csrf: string }) {
  const { data } = props;
  return (
    <form class="composer" method="post" action="/console/conversation/post" data-composer="">
      <Csrf token={props.csrf} />
      <input type="hidden" name="server" value={data.serverId} />
      <input type="hidden" name="target" value={data.target} />
      <label for="composer-text">Write as {data.person}</label>
      <div class="complete">
        <textarea
          id="composer-text"
          name="content"
          rows={3}
          required
          maxlength={LIMITS.messageContent.chars}
          autocomplete="off"
          aria-autocomplete="list"
          aria-controls="mention-list"
          aria-describedby="composer-help"
          data-names="/console/conversation/names"
        ></textarea>
        <div id="mention-list" role="listbox" aria-label="Agents and teams" hidden></div>
      </div>
      <p id="composer-help" class="mute">
        Type @ to mention an agent or a team: arrow keys choose, Enter or Tab takes the name, Escape
        closes. Ctrl+Enter sends.
      </p>
      <button type="submit">Send</button> <span role="status" data-composer-status=""></span>
    </form>
  );
}

/** One conversation beside the list of all: history (newest at the bottom), turn states, the composer. */
export function ConversationBody(props: {
  data: ConversationData;
  side: ConversationsData;
  csrf: string;
  older: boolean;
}) {
  const { data } = props;
  return (
    <div class="conv">
      <aside aria-label="Conversations" data-region="side">
        <h2>Conversations</h2>
        <ConversationLinks data={props.side} current={data.target} />
        <p>
          <a href="/console/conversations">All conversations</a>
        </p>
      </aside>
      <section aria-label="Conversation">
        <h1>
          {titleOf(data.target, data.names)} <span class="mute mono">{data.target}</span>
        </h1>
        <div data-region="history">
          {data.olderCursor ? (
            <p>
              <a
                href={`${conversationHref(data.serverId, data.target)}&${new URLSearchParams({ cursor: data.olderCursor })}`}
              >
                Older messages
              </a>
            </p>
          ) : null}
          {props.older ? (
            <p>
              <a href={conversationHref(data.serverId, data.target)}>Newest messages</a>
            </p>
          ) : null}
          <History data={data} />
        </div>
        {props.older ? null : <Composer data={data} csrf={props.csrf} />}
      </section>
    </div>
  );
}
