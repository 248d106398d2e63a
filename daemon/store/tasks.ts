import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { taskCreate, taskGet, taskList, taskUpdate } from '../../catalog/domains/task.js';
import { storeDomain } from './domain.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { updatedAtPage } from './updated-page.js';
import { TASK_COLUMNS, taskOf, type TaskRow } from './rows.js';
import { ReadCache } from './read-cache.js';
import type { Caller } from './server-api.js';
import type { Sql, SqlTx, SqlValue } from './sql.js';
import type { TaskField } from './notices.js';

type Task = OutputOf<typeof taskGet>['task'];
const TASK_FIELDS: readonly TaskField[] = [
  'title',
  'description',
  'status',
  'assignee',
  'projectId',
];

const BY_ID = `SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ? AND server_id = ?`;
const INSERT = `INSERT INTO tasks (id, server_id, title, description, status, assignee, project_id, revision, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING ${TASK_COLUMNS}`;
const PROJECT_EXISTS = 'SELECT 1 AS one FROM projects WHERE id = ? AND server_id = ?';

/** Tasks of the embedded server, scoped by server id. */
export class TaskStore {
  /** Tasks as last read by `get`; emptied whenever the driver's change counter moves (never used on a shared database). */
  private readonly recent;

  constructor(private readonly s: StoreContext) {
    this.recent = new ReadCache<{ serverId: string; out: OutputOf<typeof taskGet> }>(s.sql);
  }

  create(c: Caller, input: InputOf<typeof taskCreate>): Promise<OutputOf<typeof taskCreate>> {
    return this.s.idempotency.run(c, 'task/create', input, async (q) => {
      if (input.projectId !== undefined)
        await this.requireProject(q, c, input.projectId, '/projectId');
      const now = this.s.now();
      const row = await q.get<TaskRow>(INSERT, [
        newId('task'),
        c.serverId,
        input.title,
        input.description ?? '',
        input.status ?? 'todo',
        input.assignee ?? null,
        input.projectId ?? null,
        now,
        now,
      ]);
      const task = taskOf(row!);
      const fields = TASK_FIELDS.filter((f) => input[f] !== undefined);
      this.announce(q, c, true, fields, task);
      return { task };
    });
  }

  async get(c: Caller, input: InputOf<typeof taskGet>): Promise<OutputOf<typeof taskGet>> {
    const hit = this.recent.get(input.id, c.arrivedAt);
    // The same (frozen) answer object each time: the result gate keeps its screened body by identity.
    if (hit && hit.serverId === c.serverId) return hit.out;
    const out = { task: taskOf(await this.require(this.s.sql, c, input.id)) };
    this.recent.set(input.id, { serverId: c.serverId, out });
    return out;
  }

  async list(c: Caller, input: InputOf<typeof taskList>): Promise<OutputOf<typeof taskList>> {
    const filter = { status: input.status, assignee: input.assignee, projectId: input.projectId };
    const binding = { action: 'task/list', scope: c.serverId, filter };
    const where = ['server_id = ?'];
    const params: SqlValue[] = [c.serverId];
    if (filter.status !== undefined) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.assignee !== undefined) {
      where.push('assignee = ?');
      params.push(filter.assignee);
    }
    if (filter.projectId !== undefined) {
      where.push('project_id = ?');
      params.push(filter.projectId);
    }
    const query = (extra: string[], more: SqlValue[]) =>
      this.s.sql.all<TaskRow>(
        `SELECT ${TASK_COLUMNS} FROM tasks WHERE ${[...where, ...extra].join(' AND ')} ORDER BY updated_at DESC, id ASC LIMIT ?`,
        [...params, ...more],
      );
    const { items, ...more } = await updatedAtPage(
      this.s.cursors,
      binding,
      input,
      (n) => query([], [n]),
      (at, id, n) => query(['(updated_at < ? OR (updated_at = ? AND id > ?))'], [at, at, id, n]),
    );
    return { tasks: items.map(taskOf), ...more };
  }

  async update(c: Caller, input: InputOf<typeof taskUpdate>): Promise<OutputOf<typeof taskUpdate>> {
    const changes: [column: string, value: SqlValue][] = [];
    if (input.title !== undefined) changes.push(['title', input.title]);
    if (input.description !== undefined) changes.push(['description', input.description]);
    if (input.status !== undefined) changes.push(['status', input.status]);
    if (input.assignee !== undefined) changes.push(['assignee', input.assignee]);
    if (input.projectId !== undefined) changes.push(['project_id', input.projectId]);
    if (changes.length === 0) {
      throw new ExecError('validation_failed', 'nothing to update', {
        details: [
          {
            path: '',
            message: 'give at least one of title, description, status, assignee, projectId',
          },
        ],
      });
    }
    // The revision is read and the row updated in one transaction (on PostgreSQL a
    // serializable one: a concurrent update makes it retry and see the new revision).
    return this.s.idempotency.run(c, 'task/update', input, async (q) => {
      const current = await this.require(q, c, input.id);
      if (input.expectedRevision !== undefined && input.expectedRevision !== current.revision) {
        throw new ExecError(
          'revision_conflict',
          `task ${input.id} is at revision ${current.revision}, not ${input.expectedRevision}`,
          {
            hint: 'Read the task again with task get, reapply your change, and pass its current revision.',
            next: { action: 'task get', input: { id: input.id } },
          },
        );
      }
      if (typeof input.projectId === 'string')
        await this.requireProject(q, c, input.projectId, '/projectId');
      const sets = changes.map(([k]) => `${k} = ?`);
      const row = await q.get<TaskRow>(
        `UPDATE tasks SET ${sets.join(', ')}, revision = revision + 1, updated_at = ? WHERE id = ? AND server_id = ? RETURNING ${TASK_COLUMNS}`,
        [...changes.map(([, v]) => v), this.s.now(), input.id, c.serverId],
      );
      const task = taskOf(row!);
      this.announce(
        q,
        c,
        false,
        TASK_FIELDS.filter((f) => input[f] !== undefined),
        task,
      );
      return { task };
    });
  }

  /** Every committed task write goes out through here (the event stream's task.changed). */
  private announce(q: SqlTx, c: Caller, created: boolean, fields: TaskField[], task: Task): void {
    this.s.notices.after(q, {
      kind: 'task',
      serverId: c.serverId,
      actor: c.agentId,
      created,
      fields,
      task,
    });
  }

  /** Used by reviews too: a review thread exists only for a task of the same server. */
  async require(q: Sql, c: Caller, id: string): Promise<TaskRow> {
    const row = await q.get<TaskRow>(BY_ID, [id, c.serverId]);
    if (!row)
      throw new ExecError('not_found', `task ${id} not found`, {
        hint: 'List tasks with task list to find the id.',
      });
    return row;
  }

  private async requireProject(q: Sql, c: Caller, id: string, path: string): Promise<void> {
    if (!(await q.get(PROJECT_EXISTS, [id, c.serverId]))) {
      throw new ExecError('not_found', `project ${id} not found`, {
        details: [{ path, message: 'no such project' }],
      });
    }
  }
}

/** The task domain of the team server. */
export const taskDomain = storeDomain(
  (ctx) => new TaskStore(ctx),
  (on) => [
    on(taskCreate, (s, c, i) => s.create(c, i)),
    on(taskGet, (s, c, i) => s.get(c, i)),
    on(taskList, (s, c, i) => s.list(c, i)),
    on(taskUpdate, (s, c, i) => s.update(c, i)),
  ],
);
