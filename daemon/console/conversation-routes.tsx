import type { Context, Hono } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { TARGET_PATTERN } from '../../catalog/mcp-tools.js';
import type { Clock } from '../../lib/clock.js';
import { OperatorCallError } from '../../lib/operator-client.js';
import { conversationReads } from './conversations-read.js';
import { Layout } from './layout.js';
import type { ConsoleOperator } from './operator-client.js';
import type { Body, ConsoleEnv } from './page-bodies.js';
import { ConversationBody } from './pages/conversation.js';
import { ConversationsBody, conversationHref } from './pages/conversations.js';

type Page = (c: Context, el: unknown, status?: number) => Promise<Response>;

const TARGET = new RegExp(TARGET_PATTERN);
const SERVER = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

/** A refusal of the daemon shown in the page body (a bad cursor, an unknown thread), not a 500. */
async function orRefusal(read: () => Promise<JSX.Element>): Promise<JSX.Element> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof OperatorCallError) || err.status >= 500) throw err;
    return (
      <p role="alert" class="bad">
        {err.code}: {err.message}
      </p>
    );
  }
}

/**
 * The Conversations pages (both live) and what the composer uses: the names
 * it completes after `@` (the profile's agents and teams, from the daemon)
 * and the post, as the profile's person, through `messages.post`.
 */
export function registerConversations(
  app: Hono<ConsoleEnv>,
  op: ConsoleOperator,
  d: { readonly clock: Clock; readonly defaultServer: string },
  page: Page,
): { conversations: Body; conversation: Body } {
  const reads = conversationReads(op, d.clock);
  const serverOf = (c: Context) => {
    const s = c.req.query('server');
    return s && SERVER.test(s) ? s : d.defaultServer;
  };

  const conversations: Body = async (c) =>
    orRefusal(async () => (
      <ConversationsBody
        data={await reads.list(serverOf(c), c.req.query('cursor') || undefined, 50)}
      />
    ));
  const conversation: Body = async (c) => {
    const target = c.req.query('target') ?? '';
    if (!TARGET.test(target))
      return (
        <>
          <h1>No such conversation</h1>
          <p>
            A conversation is <code>channel:</code>, <code>dm:</code>, <code>thread:</code> or{' '}
            <code>task:</code> and its name. <a href="/console/conversations">Conversations</a>
          </p>
        </>
      );
    const cursor = c.req.query('cursor') || undefined;
    const server = serverOf(c);
    return orRefusal(async () => {
      const data = await reads.conversation(server, target, cursor);
      return (
        <ConversationBody
          data={data}
          side={await reads.list(server, undefined, undefined, data.names)}
          csrf={c.get('session').csrf}
          older={cursor !== undefined}
        />
      );
    });
  };

  app.get('/console/conversation/names', async (c) => {
    const n = await reads.names();
    return c.json({ agents: n.agents, teams: n.teams });
  });

  app.post('/console/conversation/post', async (c) => {
    const form = await c.req.parseBody();
    const str = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');
    const target = str('target');
    const server = SERVER.test(str('server')) ? str('server') : d.defaultServer;
    const byScript = c.req.header('x-console-fetch') === '1';
    try {
      const { person } = await reads.names();
      // Sent as given: the daemon's own validation (target grammar, content limits) answers.
      const posted = await op.call('messages.post', {
        body: { serverId: server, target, author: person, content: str('content') },
      });
      if (byScript) return c.json({ ok: true, data: { message: { id: posted.message.id } } }, 201);
      return c.redirect(conversationHref(server, target), 303);
    } catch (err) {
      if (!(err instanceof OperatorCallError)) throw err;
      if (byScript)
        return c.json(
          { ok: false, error: { code: err.code, message: err.message } },
          err.status as 400,
        );
      const back = TARGET.test(target)
        ? conversationHref(server, target)
        : '/console/conversations';
      return page(
        c,
        <Layout page="detail" title="Refused">
          <h1>Not sent</h1>
          <p role="alert" class="bad">
            {err.code}: {err.message}
          </p>
          <p>
            <a href={back}>Back</a>
          </p>
        </Layout>,
        err.status as 400,
      );
    }
  });

  return { conversations, conversation };
}
