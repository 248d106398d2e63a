import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { reviewAdd, reviewList } from '../../catalog/domains/review.js';
import { storeDomain } from './domain.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { updatedAtPage } from './updated-page.js';
import { reviewOf, type ReviewRow } from './rows.js';
import type { Caller } from './server-api.js';
import { taskDomain, type TaskStore } from './tasks.js';

const COLUMNS = 'id, task_id, author, verdict, body, created_at, updated_at';
const INSERT = `INSERT INTO reviews (id, server_id, task_id, author, verdict, body, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`;
const FIRST_PAGE = `SELECT ${COLUMNS} FROM reviews WHERE task_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?`;
const NEXT_PAGE = `SELECT ${COLUMNS} FROM reviews WHERE task_id = ? AND (updated_at < ? OR (updated_at = ? AND id < ?))
  ORDER BY updated_at DESC, id DESC LIMIT ?`;

/** Review threads: one per task; the author is always the calling agent. */
class ReviewStore {
  constructor(
    private readonly s: StoreContext,
    private readonly tasks: TaskStore,
  ) {}

  add(c: Caller, input: InputOf<typeof reviewAdd>): Promise<OutputOf<typeof reviewAdd>> {
    return this.s.idempotency.run(c, 'review/add', input, async (q) => {
      await this.tasks.require(q, c, input.taskId);
      const now = this.s.now();
      const row = await q.get<ReviewRow>(INSERT, [
        newId('review'),
        c.serverId,
        input.taskId,
        c.agentId,
        input.verdict,
        input.body,
        now,
        now,
      ]);
      return { review: reviewOf(row!) };
    });
  }

  async list(c: Caller, input: InputOf<typeof reviewList>): Promise<OutputOf<typeof reviewList>> {
    await this.tasks.require(this.s.sql, c, input.taskId);
    const binding = { action: 'review/list', scope: c.serverId, filter: { taskId: input.taskId } };
    const { items, ...more } = await updatedAtPage(
      this.s.cursors,
      binding,
      input,
      (n) => this.s.sql.all<ReviewRow>(FIRST_PAGE, [input.taskId, n]),
      (at, id, n) => this.s.sql.all<ReviewRow>(NEXT_PAGE, [input.taskId, at, at, id, n]),
    );
    return { reviews: items.map(reviewOf), ...more };
  }
}

/** The review domain of the team server; a review's task must exist (the task domain's). */
export const reviewDomain = storeDomain(
  (ctx, use) => new ReviewStore(ctx, use(taskDomain)),
  (on) => [on(reviewAdd, (s, c, i) => s.add(c, i)), on(reviewList, (s, c, i) => s.list(c, i))],
);
