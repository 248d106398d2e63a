import type { Db } from './db.js';
import { Idempotency, type IdempotencyLimits } from './idempotency.js';
import { CursorCodec } from '../exec/cursor.js';
import type { Caller, ServerApi } from './server-api.js';
import { TaskStore } from './tasks.js';
import { ProjectStore } from './projects.js';
import { ReviewStore } from './reviews.js';

/** The embedded team server: SQLite-backed implementation of ServerApi. */
export class EmbeddedServer {
  private readonly tasks: TaskStore;
  private readonly projects: ProjectStore;
  private readonly reviews: ReviewStore;
  /** Also signs the daemon's own local collections (team, agent). */
  readonly cursors: CursorCodec;

  constructor(db: Db, now: () => number, idempotency: IdempotencyLimits = {}) {
    const key = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'cursor_key'").get();
    if (!key) throw new Error('store has no cursor key; was migration 001_core applied?');
    this.cursors = new CursorCodec(Buffer.from(key.value, 'base64url'));
    const ctx = { db, now, idempotency: new Idempotency(db, now, idempotency), cursors: this.cursors };
    this.tasks = new TaskStore(ctx);
    this.projects = new ProjectStore(ctx);
    this.reviews = new ReviewStore(ctx, this.tasks);
  }

  /** The server API as seen by one caller. Cheap: closures over shared prepared statements. */
  forCaller(c: Caller): ServerApi {
    const { tasks, projects, reviews } = this;
    return {
      createTask: async (i) => tasks.create(c, i),
      getTask: async (i) => tasks.get(c, i),
      listTasks: async (i) => tasks.list(c, i),
      updateTask: async (i) => tasks.update(c, i),
      createProject: async (i) => projects.create(c, i),
      getProject: async (i) => projects.get(c, i),
      listProjects: async (i) => projects.list(c, i),
      addReview: async (i) => reviews.add(c, i),
      listReviews: async (i) => reviews.list(c, i),
    };
  }
}
