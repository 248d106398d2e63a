import type { AuditEntry } from '../../catalog/audit.js';
import type { Clock } from '../../lib/clock.js';
import type { OperatorCallOutput, OperatorClient } from '../../lib/operator-client.js';
import type { TurnView } from './turns-read.js';

export type Listed = OperatorCallOutput<'conversations.list'>['conversations'][number];
type Message = OperatorCallOutput<'messages.history'>['messages'][number];
type Names = OperatorCallOutput<'conversations.names'>;

/** The Conversations list (and the side list of a conversation). */
export interface ConversationsData {
  readonly serverId: string;
  readonly person: string;
  readonly conversations: readonly Listed[];
  readonly nextCursor: string | null;
  readonly names: Names;
}

/** One conversation: its newest messages (oldest first), the turns they started, each turn's calls. */
export interface ConversationData {
  readonly serverId: string;
  readonly target: string;
  readonly person: string;
  readonly messages: readonly Message[];
  readonly olderCursor: string | null;
  /** Turns on this target (running, queued, and the newest), newest first. */
  readonly turns: readonly TurnView[];
  readonly calls: ReadonlyMap<string, readonly AuditEntry[]>;
  readonly names: Names;
}

/** Messages a conversation page shows; conversations the side list shows. */
const HISTORY = 30;
const SIDE = 30;
/** Turns whose calls are read per render (the newest), and how many ended turns' calls are kept. */
const CALLS_OF = 10;
const CALL_CACHE = 500;

/** How a target reads as a title. */
export function titleOf(target: string, names: Names): string {
  const [kind, rest = ''] = [
    target.slice(0, target.indexOf(':')),
    target.slice(target.indexOf(':') + 1),
  ];
  if (kind === 'channel') return `#${rest}`;
  if (kind === 'dm') {
    const a = names.agents.find((x) => x.id === rest);
    return a && a.displayName !== a.id ? `${a.displayName} (${a.id})` : rest;
  }
  if (kind === 'thread') return `Thread ${rest}`;
  return `Task ${rest}`;
}

/**
 * The conversation pages' reads, through the operator rows the CLI has too
 * (`conversations.*`, `messages.history`, the turn reads, `audit.list` by
 * turn). The calls of a turn that ended more than a few seconds ago no
 * longer change, so they are kept; a page with nothing running reads no
 * audit rows once it has them.
 */
export function conversationReads(op: OperatorClient, clock: Clock) {
  const ended = new Map<string, readonly AuditEntry[]>();
  /** The newest message each person has been shown on each target (marked read once per message). */
  const marked = new Map<string, string>();

  const names = () => op.call('conversations.names', {});

  async function list(
    serverId: string,
    cursor?: string,
    limit = SIDE,
    known?: Names,
  ): Promise<ConversationsData> {
    const page = await op.call('conversations.list', {
      query: { serverId, limit: String(limit), ...(cursor ? { cursor } : {}) },
    });
    return {
      serverId,
      person: page.person,
      conversations: page.conversations,
      nextCursor: page.nextCursor ?? null,
      names: known ?? (await names()),
    };
  }

  async function callsOf(serverId: string, t: TurnView): Promise<readonly AuditEntry[]> {
    const kept = ended.get(t.id);
    if (kept) return kept;
    if (t.state === 'queued') return [];
    const page = await op.call('audit.list', {
      query: { server: serverId, turn: t.id, limit: '100' },
    });
    const settled = t.finishedAt !== null && clock.now() - Date.parse(t.finishedAt) > 5_000;
    if (settled) {
      if (ended.size >= CALL_CACHE) ended.delete(ended.keys().next().value!);
      ended.set(t.id, page.entries);
    }
    return page.entries;
  }

  async function turnsOn(serverId: string, target: string): Promise<TurnView[]> {
    const read = async (body: { state?: 'running' | 'queued'; agent?: string }) =>
      (await op.call('reads.turn.list', { params: { serverId }, body: { ...body, limit: 100 } }))
        .turns;
    const agent = target.startsWith('dm:') ? { agent: target.slice(3) } : {};
    const byId = new Map<string, TurnView>();
    for (const t of [
      ...(await read({ state: 'running', ...agent })),
      ...(await read({ state: 'queued', ...agent })),
      ...(await read(agent)),
    ])
      if (t.target === target) byId.set(t.id, t);
    return [...byId.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  }

  async function conversation(
    serverId: string,
    target: string,
    cursor?: string,
  ): Promise<ConversationData> {
    const history = await op.call('messages.history', {
      query: { serverId, target, limit: String(HISTORY), ...(cursor ? { cursor } : {}) },
    });
    const n = await names();
    const turns = await turnsOn(serverId, target);
    const calls = new Map<string, readonly AuditEntry[]>();
    for (const t of turns.slice(0, CALLS_OF)) calls.set(t.id, await callsOf(serverId, t));
    const newest = history.messages[0];
    // Shown is seen: the newest page moves the person's read mark, once per new message.
    const key = `${serverId}\n${n.person}\n${target}`;
    if (!cursor && newest && marked.get(key) !== newest.id) {
      await op.call('conversations.read', { body: { serverId, target, upTo: newest.id } });
      if (marked.size >= CALL_CACHE) marked.delete(marked.keys().next().value!);
      marked.set(key, newest.id);
    }
    return {
      serverId,
      target,
      person: n.person,
      messages: [...history.messages].reverse(),
      olderCursor: history.nextCursor ?? null,
      turns,
      calls,
      names: n,
    };
  }

  return { list, conversation, names };
}
