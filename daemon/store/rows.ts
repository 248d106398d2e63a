import type { OutputOf } from '../../catalog/descriptor.js';
import type { taskGet } from '../../catalog/domains/task.js';
import type { projectGet } from '../../catalog/domains/project.js';
import type { reviewAdd } from '../../catalog/domains/review.js';
import { isoTime } from './ids.js';

export type Task = OutputOf<typeof taskGet>['task'];
export type Project = OutputOf<typeof projectGet>['project'];
export type Review = OutputOf<typeof reviewAdd>['review'];

export interface TaskRow {
  id: string; title: string; description: string; status: Task['status']; assignee: string | null;
  project_id: string | null; revision: number; created_at: number; updated_at: number;
}
export interface ProjectRow {
  id: string; name: string; description: string; revision: number; created_at: number; updated_at: number;
}
export interface ReviewRow {
  id: string; task_id: string; author: string; verdict: Review['verdict']; body: string; created_at: number; updated_at: number;
}

/** The columns of a task read as an array (`.raw()`), in TaskTuple order. */
export const TASK_COLUMNS = 'id, title, description, status, assignee, project_id, revision, created_at, updated_at';
export type TaskTuple = [
  id: string, title: string, description: string, status: Task['status'], assignee: string | null,
  project_id: string | null, revision: number, created_at: number, updated_at: number,
];

export const taskRowOf = (t: TaskTuple): TaskRow => ({
  id: t[0], title: t[1], description: t[2], status: t[3], assignee: t[4], project_id: t[5], revision: t[6], created_at: t[7], updated_at: t[8],
});

export const taskOfTuple = (t: TaskTuple): Task => ({
  id: t[0], title: t[1], description: t[2], status: t[3], assignee: t[4],
  projectId: t[5], revision: t[6], createdAt: isoTime(t[7]), updatedAt: isoTime(t[8]),
});

/** Storage rows to the catalog's lowerCamelCase DTOs; nothing else leaves the store. */
export const taskOf = (r: TaskRow): Task => ({
  id: r.id, title: r.title, description: r.description, status: r.status, assignee: r.assignee,
  projectId: r.project_id, revision: r.revision, createdAt: isoTime(r.created_at), updatedAt: isoTime(r.updated_at),
});

export const projectOf = (r: ProjectRow): Project => ({
  id: r.id, name: r.name, description: r.description, revision: r.revision,
  createdAt: isoTime(r.created_at), updatedAt: isoTime(r.updated_at),
});

export const reviewOf = (r: ReviewRow): Review => ({
  id: r.id, taskId: r.task_id, author: r.author, verdict: r.verdict, body: r.body,
  createdAt: isoTime(r.created_at), updatedAt: isoTime(r.updated_at),
});
