import { randomBytes } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { Migration } from './migrations.js';
import type { Clock } from '../../lib/clock.js';
import type { MessageRecord } from '../../catalog/mcp-tools.js';
import { ExecError } from '../errors.js';
import { LIMITS } from '../../catalog/limits.js';
import { decodeMessageCursor, encodeMessageCursor } from './messages-cursor.js';

/**
 * The message table, appended to the store's migration list (schema.ts).
 * Scoped by server_id like every other table: one embedded store stands in
 * for one team server per serverId.
 */
export const MESSAGES_MIGRATION: Migration = {
  id: '002_messages',
  up(db) {
    db.exec(`
    CREATE TABLE messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      server_id TEXT NOT NULL,
      target TEXT NOT NULL,
      author TEXT NOT NULL,
      content TEXT NOT NULL,
      reply_to TEXT,
      reactions TEXT NOT NULL DEFAULT '[]',
      created_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX messages_by_target ON messages (server_id, target, seq DESC);
    `);
  },
};

export interface SendMessage {
  serverId: string;
  target: string;
  author: string;
  content: string;
  replyTo?: string | undefined;
}

export interface HistoryQuery {
  serverId: string;
  target: string;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface HistoryPage {
  target: string;
  messages: MessageRecord[];
  hasMore: boolean;
  nextCursor?: string;
}

export interface ReactInput {
  serverId: string;
  messageId: string;
  emoji: string;
  author: string;
}

/** What the MCP tools and the operator routes use; the store behind it is swappable. */
export interface MessageApi {
  send(input: SendMessage): MessageRecord;
  history(query: HistoryQuery): HistoryPage;
  react(input: ReactInput): MessageRecord;
}

/** Rows are read as arrays in this column order (no per-row column objects on the hot path). */
const COLUMNS = 'seq, id, target, author, content, reply_to, reactions, created_at';
type Row = [seq: number, id: string, target: string, author: string, content: string, replyTo: string | null, reactions: string, createdAt: number];

type Reaction = MessageRecord['reactions'][number];

function toRecord(r: Row): MessageRecord {
  return {
    id: r[1],
    target: r[2],
    author: r[3],
    content: r[4],
    replyTo: r[5],
    reactions: r[6] === '[]' ? [] : (JSON.parse(r[6]) as Reaction[]),
    createdAt: new Date(r[7]).toISOString(),
  };
}

function reactionLimit(message: string, hint: string): ExecError {
  return new ExecError('validation_failed', message, { details: [{ path: '/emoji', message }], hint });
}

export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_MAX_LIMIT = 50;

/** How many targets keep their newest page in memory. */
const FIRST_PAGE_CACHE_TARGETS = 1024;

/**
 * Messages in the embedded SQLite store. History is newest first by insertion
 * sequence (a strictly increasing integer, so ties on the clock cannot
 * reorder or duplicate a page).
 */
export class MessageStore implements MessageApi {
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly firstPage: Statement;
  private readonly nextPage: Statement;
  private readonly setReactions: Statement;
  /**
   * The newest page of each recently read target, by `serverId\ntarget` then
   * limit. The daemon is the store's only writer (singleton lock) and every
   * write below drops its target's entry, so a cached page is never stale.
   */
  private readonly firstPages = new Map<string, Map<number, HistoryPage>>();

  constructor(db: Database, private readonly clock: Clock) {
    this.insert = db
      .prepare(`INSERT INTO messages (id, server_id, target, author, content, reply_to, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`)
      .raw(true);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM messages WHERE server_id = ? AND id = ?`).raw(true);
    this.firstPage = db.prepare(`SELECT ${COLUMNS} FROM messages WHERE server_id = ? AND target = ? ORDER BY seq DESC LIMIT ?`).raw(true);
    this.nextPage = db
      .prepare(`SELECT ${COLUMNS} FROM messages WHERE server_id = ? AND target = ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .raw(true);
    this.setReactions = db.prepare(`UPDATE messages SET reactions = ? WHERE seq = ? RETURNING ${COLUMNS}`).raw(true);
  }

  send(input: SendMessage): MessageRecord {
    if (input.target.startsWith('thread:') && !this.byId.get(input.serverId, input.target.slice('thread:'.length))) {
      throw new ExecError('not_found', `thread root ${input.target.slice(7)} does not exist`, {
        hint: 'A thread target is thread:<id of an existing message>.',
      });
    }
    if (input.replyTo !== undefined) this.checkReplyTo(input.serverId, input.target, input.replyTo);
    const id = 'msg_' + this.clock.now().toString(36).padStart(9, '0') + randomBytes(5).toString('hex');
    const row = this.insert.get(id, input.serverId, input.target, input.author, input.content, input.replyTo ?? null, this.clock.now()) as Row;
    this.firstPages.delete(`${input.serverId}\n${input.target}`);
    return toRecord(row);
  }

  private checkReplyTo(serverId: string, target: string, replyTo: string): void {
    const parent = this.byId.get(serverId, replyTo) as Row | undefined;
    if (!parent) throw new ExecError('not_found', `message ${replyTo} does not exist`);
    // A reply stays in its parent's target; inside a thread it may answer the root.
    if (parent[2] !== target && target !== `thread:${replyTo}`) {
      throw new ExecError('validation_failed', `message ${replyTo} belongs to ${parent[2]}, not ${target}`, {
        details: [{ path: '/replyTo', message: `replyTo must name a message of target ${target}` }],
      });
    }
  }

  history(query: HistoryQuery): HistoryPage {
    const limit = query.limit ?? HISTORY_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > HISTORY_MAX_LIMIT) {
      throw new ExecError('validation_failed', `limit must be an integer from 1 to ${HISTORY_MAX_LIMIT}`, {
        details: [{ path: '/limit', message: `must be 1..${HISTORY_MAX_LIMIT}` }],
      });
    }
    // The cursor binds server and target, so a page cannot continue elsewhere.
    const key = `${query.serverId}\n${query.target}`;
    if (query.cursor === undefined) {
      const hit = this.firstPages.get(key)?.get(limit);
      if (hit) return hit;
    }
    const rows = (
      query.cursor === undefined
        ? this.firstPage.all(query.serverId, query.target, limit + 1)
        : this.nextPage.all(query.serverId, query.target, decodeMessageCursor(key, query.cursor), limit + 1)
    ) as Row[];
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const out: HistoryPage = { target: query.target, messages: page.map(toRecord), hasMore };
    const last = page[page.length - 1];
    if (hasMore && last) out.nextCursor = encodeMessageCursor(key, last[0]);
    if (query.cursor === undefined) this.remember(key, limit, out);
    return out;
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

  react(input: ReactInput): MessageRecord {
    const row = this.byId.get(input.serverId, input.messageId) as Row | undefined;
    if (!row) throw new ExecError('not_found', `message ${input.messageId} does not exist`);
    const reactions = JSON.parse(row[6]) as Reaction[];
    let entry = reactions.find((r) => r.emoji === input.emoji);
    if (entry?.authors.includes(input.author)) return toRecord(row);
    // Bounded so that one message, reactions and all, always fits a page of one.
    if (!entry && reactions.length >= LIMITS.reactionEmoji) {
      throw reactionLimit(`message ${input.messageId} already has ${LIMITS.reactionEmoji} distinct emoji`, 'React with one of the emoji already on the message.');
    }
    if (entry && entry.authors.length >= LIMITS.reactors) {
      throw reactionLimit(`message ${input.messageId} already has ${LIMITS.reactors} reactors of ${input.emoji}`, 'Reply with a message instead.');
    }
    if (!entry) {
      entry = { emoji: input.emoji, authors: [] };
      reactions.push(entry);
    }
    entry.authors.push(input.author);
    this.firstPages.delete(`${input.serverId}\n${row[2]}`);
    return toRecord(this.setReactions.get(JSON.stringify(reactions), row[0]) as Row);
  }
}
