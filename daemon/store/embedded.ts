import type { Db } from './db.js';
import type { SqlStore } from './sql.js';
import { Idempotency, type IdempotencyLimits } from './idempotency.js';
import { LegacyIdempotency } from './idempotency-legacy.js';
import { CursorCodec } from '../exec/cursor.js';
import type { Caller, ServerApi } from './server-api.js';
import { TaskStore } from './tasks.js';
import { ProjectStore } from './projects.js';
import { ReviewStore } from './reviews.js';
import { ScheduleStore } from './schedules.js';
import { ApprovalStore } from './approvals.js';
import { WorkflowStore } from './workflows.js';

/** The embedded team server: SQLite-backed implementation of ServerApi. */
export class EmbeddedServer {
  private readonly tasks: TaskStore;
  private readonly projects: ProjectStore;
  private readonly reviews: ReviewStore;
  private readonly idempotency: Idempotency;
  private readonly legacyIdempotency: LegacyIdempotency;
  /** Scheduled messages; the scheduler subscribes to its onChange. */
  readonly schedules: ScheduleStore;
  /** Approvals; also the operator's side (people decide). */
  readonly approvals: ApprovalStore;
  /** Workflows; its triggers are a scheduler source and a message hook. */
  readonly workflows: WorkflowStore;
  /** Also signs the daemon's own local collections (team, agent). */
  readonly cursors: CursorCodec;

  constructor(db: Db, sql: SqlStore, now: () => number, idempotency: IdempotencyLimits = {}) {
    const key = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'cursor_key'").get();
    if (!key) throw new Error('store has no cursor key; was migration 001_core applied?');
    this.cursors = new CursorCodec(Buffer.from(key.value, 'base64url'));
    this.idempotency = new Idempotency(sql, now, idempotency);
    this.legacyIdempotency = new LegacyIdempotency(db, now, idempotency);
    const ctx = { db, sql, now, idempotency: this.idempotency, legacyIdempotency: this.legacyIdempotency, cursors: this.cursors };
    this.tasks = new TaskStore(ctx);
    this.projects = new ProjectStore(ctx);
    this.reviews = new ReviewStore(ctx, this.tasks);
    this.schedules = new ScheduleStore(ctx);
    this.approvals = new ApprovalStore(ctx);
    this.workflows = new WorkflowStore(ctx);
  }

  /** The server API as seen by one caller. Cheap: closures over shared prepared statements. */
  forCaller(c: Caller): ServerApi {
    const { tasks, projects, reviews, schedules, approvals, idempotency, workflows } = this;
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
      createSchedule: async (i) => schedules.create(c, i),
      getSchedule: async (i) => schedules.get(c, i),
      listSchedules: async (i) => schedules.list(c, i),
      cancelSchedule: async (i) => schedules.cancel(c, i),
      listScheduleRuns: async (i) => schedules.runs(c, i),
      requestApproval: async (i) => approvals.request(c, i),
      getApproval: async (i) => approvals.get(c, i),
      listApprovals: async (i) => approvals.list(c, i),
      decideApproval: async (i) => approvals.decide(c, i),
      idempotent: (action, input, apply) => this.legacyIdempotency.run(c, action, input, apply),
      ...workflows.forCaller(c),
    };
  }
}
