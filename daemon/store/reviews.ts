import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { reviewAdd, reviewList } from '../../catalog/domains/review.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { updatedAtPage } from './updated-page.js';
import { reviewOf, type ReviewRow } from './rows.js';
import type { Caller } from './server-api.js';
import type { TaskStore } from './tasks.js';

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
    return this.s.legacyIdempotency.run(c, 'review/add', input, () => {
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
    const { items, ...more } = updatedAtPage(
      this.s.cursors, binding, input,
      (n) => this.firstPage.all(input.taskId, n),
      (at, id, n) => this.nextPage.all(input.taskId, at, at, id, n),
    );
    return { reviews: items.map(reviewOf), ...more };
  }
}
