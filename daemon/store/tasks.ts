import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { taskCreate, taskGet, taskList, taskUpdate } from '../../catalog/domains/task.js';
import { ExecError } from '../errors.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { updatedAtPage } from './updated-page.js';
import { TASK_COLUMNS, taskOf, taskOfTuple, taskRowOf, type Task, type TaskRow, type TaskTuple } from './rows.js';
import { ReadCache } from './read-cache.js';
import type { Caller } from './server-api.js';

/** Tasks of the embedded server, scoped by server id. */
export class TaskStore {
  private readonly byId;
  private readonly insert;
  private readonly projectExists;
  private readonly lists = new Map<string, ReturnType<StoreContext['db']['prepare']>>();
  /** Tasks as last read by `get`; emptied by SQLite's own change counters on any write. */
  private readonly recent;

  constructor(private readonly s: StoreContext) {
    // Named columns, rows as arrays: better-sqlite3 builds no keyed object per row (~3 µs less per read).
    this.byId = s.db.prepare<[string, string], TaskTuple>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ? AND server_id = ?`).raw(true);
    this.insert = s.db.prepare(
      `INSERT INTO tasks (id, server_id, title, description, status, assignee, project_id, revision, created_at, updated_at)
       VALUES (@id, @server_id, @title, @description, @status, @assignee, @project_id, 1, @now, @now)`,
    );
    this.recent = new ReadCache<{ serverId: string; task: Task }>(s.db);
    this.projectExists = s.db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM projects WHERE id = ? AND server_id = ?');
  }

  create(c: Caller, input: InputOf<typeof taskCreate>): OutputOf<typeof taskCreate> {
    return this.s.legacyIdempotency.run(c, 'task/create', input, () => {
      if (input.projectId !== undefined) this.requireProject(c, input.projectId, '/projectId');
      const id = newId('task');
      this.insert.run({
        id, server_id: c.serverId, title: input.title, description: input.description ?? '',
        status: input.status ?? 'todo', assignee: input.assignee ?? null, project_id: input.projectId ?? null, now: this.s.now(),
      });
      return { task: taskOfTuple(this.byId.get(id, c.serverId)!) };
    });
  }

  get(c: Caller, input: InputOf<typeof taskGet>): OutputOf<typeof taskGet> {
    const hit = this.recent.get(input.id);
    if (hit && hit.serverId === c.serverId) return { task: hit.task };
    const task = taskOfTuple(this.requireTuple(c, input.id));
    this.recent.set(input.id, { serverId: c.serverId, task: Object.freeze(task) });
    return { task };
  }

  list(c: Caller, input: InputOf<typeof taskList>): OutputOf<typeof taskList> {
    const filter = { status: input.status, assignee: input.assignee, projectId: input.projectId };
    const binding = { action: 'task/list', scope: c.serverId, filter };
    const where = ['server_id = @server'];
    if (filter.status !== undefined) where.push('status = @status');
    if (filter.assignee !== undefined) where.push('assignee = @assignee');
    if (filter.projectId !== undefined) where.push('project_id = @projectId');
    const query = (extra: string[], params: Record<string, unknown>) =>
      this.statement(`SELECT * FROM tasks WHERE ${[...where, ...extra].join(' AND ')} ORDER BY updated_at DESC, id ASC LIMIT @limit`).all(
        stripUndefined({ server: c.serverId, ...filter, ...params }),
      ) as TaskRow[];
    const { items, ...more } = updatedAtPage(
      this.s.cursors, binding, input,
      (n) => query([], { limit: n }),
      (at, id, n) => query(['(updated_at < @at OR (updated_at = @at AND id > @id))'], { at, id, limit: n }),
    );
    return { tasks: items.map(taskOf), ...more };
  }

  update(c: Caller, input: InputOf<typeof taskUpdate>): OutputOf<typeof taskUpdate> {
    const changes: Record<string, unknown> = {};
    if (input.title !== undefined) changes.title = input.title;
    if (input.description !== undefined) changes.description = input.description;
    if (input.status !== undefined) changes.status = input.status;
    if (input.assignee !== undefined) changes.assignee = input.assignee;
    if (input.projectId !== undefined) changes.project_id = input.projectId;
    if (Object.keys(changes).length === 0) {
      throw new ExecError('validation_failed', 'nothing to update', {
        details: [{ path: '', message: 'give at least one of title, description, status, assignee, projectId' }],
      });
    }
    return this.s.legacyIdempotency.run(c, 'task/update', input, () => {
      const current = this.require(c, input.id);
      if (input.expectedRevision !== undefined && input.expectedRevision !== current.revision) {
        throw new ExecError('revision_conflict', `task ${input.id} is at revision ${current.revision}, not ${input.expectedRevision}`, {
          hint: 'Read the task again with task get, reapply your change, and pass its current revision.',
          next: { action: 'task get', input: { id: input.id } },
        });
      }
      if (typeof input.projectId === 'string') this.requireProject(c, input.projectId, '/projectId');
      const sets = Object.keys(changes).map((k) => `${k} = @${k}`);
      this.statement(
        `UPDATE tasks SET ${sets.join(', ')}, revision = revision + 1, updated_at = @now WHERE id = @id AND server_id = @server`,
      ).run({ ...changes, now: this.s.now(), id: input.id, server: c.serverId });
      return { task: taskOfTuple(this.byId.get(input.id, c.serverId)!) };
    });
  }

  /** Used by reviews: a review thread exists only for a task of the same server. */
  require(c: Caller, id: string): TaskRow {
    return taskRowOf(this.requireTuple(c, id));
  }

  private requireTuple(c: Caller, id: string): TaskTuple {
    const row = this.byId.get(id, c.serverId);
    if (!row) throw new ExecError('not_found', `task ${id} not found`, { hint: 'List tasks with task list to find the id.' });
    return row;
  }

  private requireProject(c: Caller, id: string, path: string): void {
    if (!this.projectExists.get(id, c.serverId)) {
      throw new ExecError('not_found', `project ${id} not found`, { details: [{ path, message: 'no such project' }] });
    }
  }

  private statement(sql: string) {
    let st = this.lists.get(sql);
    if (!st) {
      st = this.s.db.prepare(sql);
      this.lists.set(sql, st);
    }
    return st;
  }
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
