import type { Migration } from './migrations.js';
import type { StoreContext } from './context.js';
import type { Sql } from './sql.js';
import { storeDomain } from './domain.js';
import { ExecError } from '../errors/exec-error.js';

/**
 * Conversations and a person's read marks. `conversations` keeps, per server
 * and target, the newest message's sequence number, time and author (written
 * beside every message, so listing the newest conversations never scans the
 * messages); `read_marks` keeps, per server, person and target, the sequence
 * number of the newest message that person has seen.
 *
 * Unread, precisely: the messages of the target whose sequence number is
 * above the person's mark (all of them when there is none) and whose author
 * is not the person. Counting stops at UNREAD_CAP, so a long channel costs
 * one bounded index range per row shown.
 */
const CONVERSATIONS_MIGRATION: Migration = {
  id: '010_conversations',
  up(db) {
    db.exec(`
    CREATE TABLE conversations (
      server_id TEXT NOT NULL,
      target TEXT NOT NULL,
      last_seq INTEGER NOT NULL,
      last_at INTEGER NOT NULL,
      last_author TEXT NOT NULL,
      PRIMARY KEY (server_id, target)
    ) STRICT;
    CREATE INDEX conversations_by_recency ON conversations (server_id, last_seq DESC);
    CREATE TABLE read_marks (
      server_id TEXT NOT NULL,
      person TEXT NOT NULL,
      target TEXT NOT NULL,
      last_seq INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (server_id, person, target)
    ) STRICT;
    `);
    // Conversations that already have messages (a store made before this step).
    db.prepare(
      'INSERT INTO conversations (server_id, target, last_seq, last_at, last_author) SELECT m.server_id, m.target, m.seq, m.created_at, m.author FROM messages m WHERE m.seq IN (SELECT MAX(seq) FROM messages GROUP BY server_id, target)',
    ).run();
  },
};

/** An unread count at this value means "this many or more". */
const UNREAD_CAP = 100;

/** Keeps `conversations` current: run in the transaction that stores the message. */
export async function touchConversation(
  q: Sql,
  serverId: string,
  m: { target: string; author: string; seq: number; created_at: number },
): Promise<void> {
  await q.run(
    'INSERT INTO conversations (server_id, target, last_seq, last_at, last_author) VALUES (?, ?, ?, ?, ?) ON CONFLICT (server_id, target) DO UPDATE SET last_seq = excluded.last_seq, last_at = excluded.last_at, last_author = excluded.last_author WHERE conversations.last_seq < excluded.last_seq',
    [serverId, m.target, Number(m.seq), Number(m.created_at), m.author],
  );
}

interface ConversationRow {
  readonly target: string;
  readonly lastMessageAt: string;
  readonly lastAuthor: string;
  readonly unread: number;
}

interface Row {
  target: string;
  last_seq: number;
  last_at: number;
  last_author: string;
  mark: number | null;
}

/** The conversations of one server as a person sees them. */
export class ConversationStore {
  constructor(private readonly s: StoreContext) {}

  /** One page, most recent first (`last_seq DESC`); the cursor binds server and person. */
  async list(q: {
    serverId: string;
    person: string;
    limit: number;
    cursor?: string | undefined;
  }): Promise<{ items: ConversationRow[]; hasMore: boolean; nextCursor?: string }> {
    const binding = {
      action: 'conversations.list',
      scope: q.serverId,
      filter: { person: q.person },
    };
    const before =
      q.cursor === undefined
        ? null
        : (this.s.cursors.decode(binding, q.cursor, ['number'])[0] as number);
    const rows = await this.s.sql.all<Row>(
      `SELECT c.target, c.last_seq, c.last_at, c.last_author, r.last_seq AS mark FROM conversations c LEFT JOIN read_marks r ON r.server_id = c.server_id AND r.person = ? AND r.target = c.target WHERE c.server_id = ?${before === null ? '' : ' AND c.last_seq < ?'} ORDER BY c.last_seq DESC LIMIT ?`,
      [q.person, q.serverId, ...(before === null ? [] : [before]), q.limit + 1],
    );
    const hasMore = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    const items: ConversationRow[] = [];
    for (const r of page)
      items.push({
        target: r.target,
        lastMessageAt: new Date(Number(r.last_at)).toISOString(),
        lastAuthor: r.last_author,
        unread: await this.unread(q.serverId, q.person, r.target, r.mark ?? 0, r.last_seq),
      });
    const last = page[page.length - 1];
    return hasMore && last
      ? { items, hasMore, nextCursor: this.s.cursors.encode(binding, [Number(last.last_seq)]) }
      : { items, hasMore };
  }

  /** Which of `targets` have a message on the server. */
  async existing(serverId: string, targets: readonly string[]): Promise<Set<string>> {
    if (targets.length === 0) return new Set();
    const rows = await this.s.sql.all<{ target: string }>(
      `SELECT target FROM conversations WHERE server_id = ? AND target IN (${targets.map(() => '?').join(', ')})`,
      [serverId, ...targets],
    );
    return new Set(rows.map((r) => r.target));
  }

  /**
   * Marks the target read by the person up to message `upTo` (a message of
   * that target); a mark never moves back. Answers what stays unread.
   */
  async markRead(q: {
    serverId: string;
    person: string;
    target: string;
    upTo: string;
  }): Promise<{ target: string; unread: number }> {
    const msg = await this.s.sql.get<{ seq: number }>(
      'SELECT seq FROM messages WHERE server_id = ? AND target = ? AND id = ?',
      [q.serverId, q.target, q.upTo],
    );
    if (!msg)
      throw new ExecError('not_found', `message ${q.upTo} is not in ${q.target}`, {
        hint: 'upTo names a message of the same target, as messages.history lists them.',
      });
    await this.s.sql.run(
      'INSERT INTO read_marks (server_id, person, target, last_seq, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (server_id, person, target) DO UPDATE SET last_seq = excluded.last_seq, updated_at = excluded.updated_at WHERE read_marks.last_seq < excluded.last_seq',
      [q.serverId, q.person, q.target, Number(msg.seq), this.s.now()],
    );
    const mark = await this.s.sql.get<{ last_seq: number }>(
      'SELECT last_seq FROM read_marks WHERE server_id = ? AND person = ? AND target = ?',
      [q.serverId, q.person, q.target],
    );
    return {
      target: q.target,
      unread: await this.unread(q.serverId, q.person, q.target, Number(mark?.last_seq ?? 0)),
    };
  }

  private async unread(
    serverId: string,
    person: string,
    target: string,
    mark: number,
    lastSeq?: number,
  ): Promise<number> {
    if (lastSeq !== undefined && Number(lastSeq) <= Number(mark)) return 0;
    const row = await this.s.sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM messages WHERE server_id = ? AND target = ? AND seq > ? AND author <> ? LIMIT ?) u',
      [serverId, target, Number(mark), person, UNREAD_CAP],
    );
    return Number(row?.n ?? 0);
  }
}

/** No catalog actions: the operator routes (conversations.*) read and mark through the state. */
export const conversationDomain = storeDomain(
  (ctx) => new ConversationStore(ctx),
  () => [],
  [CONVERSATIONS_MIGRATION],
);
