import type { Sql, SqlStore } from './sql.js';
import { Idempotency, type IdempotencyLimits } from './idempotency.js';
import { CursorCodec } from './cursor.js';
import type { Caller, ServerApi } from './server-api.js';
import { TaskStore } from './tasks.js';
import { ProjectStore } from './projects.js';
import { ReviewStore } from './reviews.js';
import { ScheduleStore } from './schedules.js';
import { ApprovalStore } from './approvals.js';
import { WorkflowStore } from './workflows.js';

/** The key that signs pagination cursors, kept in the store's meta table (written by migration 001_core). */
export async function readCursorKey(sql: Sql): Promise<Buffer> {
  const key = await sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [
    'cursor_key',
  ]);
  if (!key) throw new Error('store has no cursor key; was migration 001_core applied?');
  return Buffer.from(key.value, 'base64url');
}

/**
 * The team server: ServerApi over the store, whichever database holds it
 * (the embedded SQLite file or a team's shared PostgreSQL). Every entity
 * store reaches the database only through the async Sql interface.
 */
export class TeamServer {
  private readonly tasks: TaskStore;
  private readonly projects: ProjectStore;
  private readonly reviews: ReviewStore;
  private readonly idempotency: Idempotency;
  /** Scheduled messages; the scheduler subscribes to its onChange. */
  readonly schedules: ScheduleStore;
  /** Approvals; also the operator's side (people decide). */
  readonly approvals: ApprovalStore;
  /** Workflows; its triggers are a scheduler source and a message hook. */
  readonly workflows: WorkflowStore;
  /** Also signs the daemon's own local collections (team, agent). */
  readonly cursors: CursorCodec;

  /** Opens the team server on a migrated store (reads its cursor key). */
  static async open(
    sql: SqlStore,
    now: () => number,
    idempotency: IdempotencyLimits = {},
    localScope: string | null = null,
  ): Promise<TeamServer> {
    return new TeamServer(sql, now, await readCursorKey(sql), idempotency, localScope);
  }

  /**
   * `cursorKey`: readCursorKey(sql), read once at open. `localScope` names
   * this daemon on a shared store: the idempotency records of daemon-local
   * effects (profile edits) are kept per daemon, since replaying one daemon's
   * edit on another would answer "done" for a profile that was never changed.
   */
  constructor(
    readonly sql: SqlStore,
    now: () => number,
    cursorKey: Buffer,
    idempotency: IdempotencyLimits = {},
    private readonly localScope: string | null = null,
  ) {
    this.cursors = new CursorCodec(cursorKey);
    this.idempotency = new Idempotency(sql, now, idempotency);
    const ctx = { sql, now, idempotency: this.idempotency, cursors: this.cursors };
    this.tasks = new TaskStore(ctx);
    this.projects = new ProjectStore(ctx);
    this.reviews = new ReviewStore(ctx, this.tasks);
    this.schedules = new ScheduleStore(ctx);
    this.approvals = new ApprovalStore(ctx);
    this.workflows = new WorkflowStore(ctx);
  }

  /** The server API as seen by one caller. Cheap: closures over the shared stores (the driver keeps one prepared statement per SQL text). */
  forCaller(c: Caller): ServerApi {
    const { tasks, projects, reviews, schedules, approvals, idempotency, workflows } = this;
    return {
      createTask: (i) => tasks.create(c, i),
      getTask: (i) => tasks.get(c, i),
      listTasks: (i) => tasks.list(c, i),
      updateTask: (i) => tasks.update(c, i),
      createProject: (i) => projects.create(c, i),
      getProject: (i) => projects.get(c, i),
      listProjects: (i) => projects.list(c, i),
      addReview: (i) => reviews.add(c, i),
      listReviews: (i) => reviews.list(c, i),
      createSchedule: async (i) => schedules.create(c, i),
      getSchedule: async (i) => schedules.get(c, i),
      listSchedules: async (i) => schedules.list(c, i),
      cancelSchedule: async (i) => schedules.cancel(c, i),
      listScheduleRuns: async (i) => schedules.runs(c, i),
      requestApproval: (i) => approvals.request(c, i),
      getApproval: (i) => approvals.get(c, i),
      listApprovals: (i) => approvals.list(c, i),
      decideApproval: (i) => approvals.decide(c, i),
      // The daemon-local effect (a profile file edit) runs inside the record's
      // transaction, so a failed edit leaves no record and a repeated key
      // replays. On PostgreSQL a serialization failure re-runs the callback, and
      // the edit with it: accepted for these profile edits, since the record's
      // lock key already serializes duplicates of one key and a re-run is rare;
      // but a re-run after the first edit took effect would apply it again
      // (update: the same fields, one revision more; create/delete: reported
      // as already_exists/not_found although the first run succeeded).
      idempotent: (action, input, apply) =>
        idempotency.run(
          c,
          this.localScope ? `${action}@${this.localScope}` : action,
          input,
          async () => apply(),
        ),
      ...workflows.forCaller(c),
    };
  }
}
