import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { reviewAdd, reviewList } from '../../catalog/domains/review.js';
import { pageLimit, pageOf } from '../exec/cursor.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { reviewOf, type ReviewRow } from './rows.js';
import type { Caller } from './server-api.js';
import type { TaskStore } from './tasks.js';

const LIST_KEY = ['number', 'string'] as const;

/** Review threads: one per task; the author is always the calling agent. */
export class ReviewStore {
  private readonly byId;
  private readonly insert;
  private readonly firstPage;
  private readonly nextPage;

  constructor(private readonly s: StoreContext, private readonly tasks: TaskStore) {
    this.byId = s.db.prepare<[string], ReviewRow>('SELECT * FROM reviews WHERE id = ?');
    this.insert = s.db.prepare(
      `INSERT INTO reviews (id, server_id, task_id, author, verdict, body, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.firstPage = s.db.prepare<[string, number], ReviewRow>(
      'SELECT * FROM reviews WHERE task_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?',
    );
    this.nextPage = s.db.prepare<[string, number, number, string, number], ReviewRow>(
      `SELECT * FROM reviews WHERE task_id = ? AND (updated_at < ? OR (updated_at = ? AND id < ?))
       ORDER BY updated_at DESC, id DESC LIMIT ?`,
    );
  }

  add(c: Caller, input: InputOf<typeof reviewAdd>): OutputOf<typeof reviewAdd> {
    return this.s.idempotency.run(c, 'review/add', input, () => {
      this.tasks.require(c, input.taskId);
      const id = newId('review');
      const now = this.s.now();
      this.insert.run(id, c.serverId, input.taskId, c.agentId, input.verdict, input.body, now, now);
      return { review: reviewOf(this.byId.get(id)!) };
    });
  }

  list(c: Caller, input: InputOf<typeof reviewList>): OutputOf<typeof reviewList> {
    this.tasks.require(c, input.taskId);
    const binding = { action: 'review/list', scope: c.serverId, filter: { taskId: input.taskId } };
    const limit = pageLimit(input.limit);
    let rows: ReviewRow[];
    if (input.cursor === undefined) {
      rows = this.firstPage.all(input.taskId, limit + 1);
    } else {
      const [at, id] = this.s.cursors.decode(binding, input.cursor, LIST_KEY) as [number, string];
      rows = this.nextPage.all(input.taskId, at, at, id, limit + 1);
    }
    const page = pageOf(rows, limit, (r) => this.s.cursors.encode(binding, [r.updated_at, r.id]));
    return { reviews: page.items.map(reviewOf), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }
}
