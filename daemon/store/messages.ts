import { randomBytes } from 'node:crypto';
import type { Sql, SqlStore, SqlTx } from './sql.js';
import type { Clock } from '../../lib/clock.js';
import { deepFreeze } from '../../lib/deep-freeze.js';
import type { MessageRecord } from '../../catalog/mcp-tools.js';
import { ExecError } from '../errors/exec-error.js';
import { LIMITS } from '../../catalog/limits.js';
import { decodeMessageCursor, encodeMessageCursor } from './messages-cursor.js';
import type { StoreNotices } from './notices.js';

export interface SendMessage {
  serverId: string;
  target: string;
  author: string;
  content: string;
  replyTo?: string | undefined;
}

interface HistoryQuery {
  serverId: string;
  target: string;
  limit?: number | undefined;
  cursor?: string | undefined;
}

interface HistoryPage {
  target: string;
  messages: MessageRecord[];
  hasMore: boolean;
  nextCursor?: string;
}

interface ReactInput {
  serverId: string;
  messageId: string;
  emoji: string;
  author: string;
}

/** What the MCP tools and the operator routes use; the store behind it is swappable. */
export interface MessageApi {
  /** Stores a message; with `q`, inside that transaction (scheduled delivery), else in a transaction of its own. */
  send(input: SendMessage, q?: SqlTx): Promise<MessageRecord>;
  history(query: HistoryQuery): Promise<HistoryPage>;
  react(input: ReactInput): Promise<MessageRecord>;
}

const COLUMNS = 'seq, id, target, author, content, reply_to, reactions, created_at';
interface Row {
  seq: number;
  id: string;
  target: string;
  author: string;
  content: string;
  reply_to: string | null;
  reactions: string;
  created_at: number;
}

type Reaction = MessageRecord['reactions'][number];

function toRecord(r: Row): MessageRecord {
  return {
    id: r.id,
    target: r.target,
    author: r.author,
    content: r.content,
    replyTo: r.reply_to,
    reactions: r.reactions === '[]' ? [] : (JSON.parse(r.reactions) as Reaction[]),
    createdAt: new Date(r.created_at).toISOString(),
  };
}

function reactionLimit(message: string, hint: string): ExecError {
  return new ExecError('validation_failed', message, {
    details: [{ path: '/emoji', message }],
    hint,
  });
}

const HISTORY_DEFAULT_LIMIT = 20;
const HISTORY_MAX_LIMIT = 50;

/** How many targets keep their newest page in memory. */
const FIRST_PAGE_CACHE_TARGETS = 1024;

const BY_ID = `SELECT ${COLUMNS} FROM messages WHERE server_id = ? AND id = ?`;

/**
 * Messages in the team store (SQLite or PostgreSQL, through the Sql
 * interface). History is newest first by insertion sequence (a strictly
 * increasing integer, so ties on the clock cannot reorder or duplicate a
 * page).
 */
export class MessageStore implements MessageApi {
  /**
   * The newest page of each recently read target, by `serverId\ntarget` then
   * limit. Only kept on the embedded SQLite store, whose only writer of
   * messages is this daemon, outside its transactions (`ownWritesOnly()`);
   * every write below drops its target's entry (inside its transaction, so
   * no reader can fill it again before the write commits), and a page read
   * while any write was under way is not kept.
   */
  private readonly firstPages = new Map<string, Map<number, HistoryPage>>();
  /** Moves at every message write: a page read across a write is not cached. */
  private writes = 0;

  constructor(
    private readonly sql: SqlStore,
    private readonly clock: Clock,
    /** Where each stored message is announced once its transaction commits (the daemon's event bus). */
    private readonly notices?: StoreNotices,
  ) {}

  async send(input: SendMessage, q?: SqlTx): Promise<MessageRecord> {
    if (q) return this.sendOn(q, input);
    return this.sql.tx((t) => this.sendOn(t, input));
  }

  private async sendOn(q: SqlTx, input: SendMessage): Promise<MessageRecord> {
    if (
      input.target.startsWith('thread:') &&
      !(await q.get(BY_ID, [input.serverId, input.target.slice('thread:'.length)]))
    ) {
      throw new ExecError('not_found', `thread root ${input.target.slice(7)} does not exist`, {
        hint: 'A thread target is thread:<id of an existing message>.',
      });
    }
    if (input.replyTo !== undefined)
      await this.checkReplyTo(q, input.serverId, input.target, input.replyTo);
    const id = `msg_${this.clock.now().toString(36).padStart(9, '0')}${randomBytes(5).toString('hex')}`;
    const row = (await q.get<Row>(
      `INSERT INTO messages (id, server_id, target, author, content, reply_to, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      [
        id,
        input.serverId,
        input.target,
        input.author,
        input.content,
        input.replyTo ?? null,
        this.clock.now(),
      ],
    ))!;
    this.forget(input.serverId, input.target);
    const message = toRecord(row);
    this.notices?.after(q, { kind: 'message', serverId: input.serverId, message });
    return message;
  }

  private async checkReplyTo(
    q: Sql,
    serverId: string,
    target: string,
    replyTo: string,
  ): Promise<void> {
    const parent = await q.get<Row>(BY_ID, [serverId, replyTo]);
    if (!parent) throw new ExecError('not_found', `message ${replyTo} does not exist`);
    // A reply stays in its parent's target; inside a thread it may answer the root.
    if (parent.target !== target && target !== `thread:${replyTo}`) {
      throw new ExecError(
        'validation_failed',
        `message ${replyTo} belongs to ${parent.target}, not ${target}`,
        {
          details: [
            { path: '/replyTo', message: `replyTo must name a message of target ${target}` },
          ],
        },
      );
    }
  }

  async history(query: HistoryQuery): Promise<HistoryPage> {
    const limit = query.limit ?? HISTORY_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > HISTORY_MAX_LIMIT) {
      throw new ExecError(
        'validation_failed',
        `limit must be an integer from 1 to ${HISTORY_MAX_LIMIT}`,
        {
          details: [{ path: '/limit', message: `must be 1..${HISTORY_MAX_LIMIT}` }],
        },
      );
    }
    // The cursor binds server and target, so a page cannot continue elsewhere.
    const key = `${query.serverId}\n${query.target}`;
    const cacheable = query.cursor === undefined && this.sql.ownWritesOnly();
    if (cacheable) {
      const hit = this.firstPages.get(key)?.get(limit);
      if (hit) return hit;
    }
    const writes = this.writes;
    const rows =
      query.cursor === undefined
        ? await this.sql.all<Row>(
            `SELECT ${COLUMNS} FROM messages WHERE server_id = ? AND target = ? ORDER BY seq DESC LIMIT ?`,
            [query.serverId, query.target, limit + 1],
          )
        : await this.sql.all<Row>(
            `SELECT ${COLUMNS} FROM messages WHERE server_id = ? AND target = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
            [query.serverId, query.target, decodeMessageCursor(key, query.cursor), limit + 1],
          );
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const out: HistoryPage = { target: query.target, messages: page.map(toRecord), hasMore };
    const last = page[page.length - 1];
    if (hasMore && last) out.nextCursor = encodeMessageCursor(key, last.seq);
    if (cacheable && writes === this.writes && this.sql.ownWritesOnly())
      this.remember(key, limit, deepFreeze(out));
    return out;
  }

  private forget(serverId: string, target: string): void {
    this.writes++;
    this.firstPages.delete(`${serverId}\n${target}`);
  }

  private remember(key: string, limit: number, page: HistoryPage): void {
    let byLimit = this.firstPages.get(key);
    if (!byLimit) {
      if (this.firstPages.size >= FIRST_PAGE_CACHE_TARGETS) {
        const oldest = this.firstPages.keys().next().value;
        if (oldest !== undefined) this.firstPages.delete(oldest);
      }
      byLimit = new Map();
      this.firstPages.set(key, byLimit);
    }
    byLimit.set(limit, page);
  }

  /** Read, change and write the reaction list in one transaction, so concurrent reactions are never lost. */
  async react(input: ReactInput): Promise<MessageRecord> {
    return this.sql.tx(async (q) => {
      const row = await q.get<Row>(BY_ID, [input.serverId, input.messageId]);
      if (!row) throw new ExecError('not_found', `message ${input.messageId} does not exist`);
      const reactions = JSON.parse(row.reactions) as Reaction[];
      let entry = reactions.find((r) => r.emoji === input.emoji);
      if (entry?.authors.includes(input.author)) return toRecord(row);
      // Per reactor first: one agent may not take every slot of a message.
      const mine = reactions.filter((r) => r.authors.includes(input.author)).map((r) => r.emoji);
      if (mine.length >= LIMITS.reactionEmojiPerReactor) {
        throw reactionLimit(
          `you already reacted to message ${input.messageId} with ${mine.length} distinct emoji (${mine.join(' ')}), the most one reactor may add`,
          'Reply with a message instead.',
        );
      }
      // Bounded so that one message, reactions and all, always fits a page of one.
      if (!entry && reactions.length >= LIMITS.reactionEmoji) {
        const open = reactions
          .filter((r) => r.authors.length < LIMITS.reactors)
          .map((r) => r.emoji);
        throw reactionLimit(
          `message ${input.messageId} already has ${LIMITS.reactionEmoji} distinct emoji`,
          open.length > 0
            ? `React with one of the emoji already on the message that has room: ${open.join(' ')}.`
            : `Every emoji on the message has ${LIMITS.reactors} reactors; reply with a message instead.`,
        );
      }
      if (entry && entry.authors.length >= LIMITS.reactors) {
        throw reactionLimit(
          `message ${input.messageId} already has ${LIMITS.reactors} reactors of ${input.emoji}`,
          'Reply with a message instead.',
        );
      }
      if (!entry) {
        entry = { emoji: input.emoji, authors: [] };
        reactions.push(entry);
      }
      entry.authors.push(input.author);
      this.forget(input.serverId, row.target);
      return toRecord(
        (await q.get<Row>(`UPDATE messages SET reactions = ? WHERE seq = ? RETURNING ${COLUMNS}`, [
          JSON.stringify(reactions),
          row.seq,
        ]))!,
      );
    });
  }
}
