import type { OutputOf } from '../../catalog/descriptor.js';
import type { taskGet } from '../../catalog/domains/task.js';
import type { projectGet } from '../../catalog/domains/project.js';
import type { reviewAdd } from '../../catalog/domains/review.js';
import { isoTime } from './ids.js';

type Task = OutputOf<typeof taskGet>['task'];
type Project = OutputOf<typeof projectGet>['project'];
type Review = OutputOf<typeof reviewAdd>['review'];

export interface TaskRow {
  id: string;
  title: string;
  description: string;
  status: Task['status'];
  assignee: string | null;
  project_id: string | null;
  revision: number;
  created_at: number;
  updated_at: number;
}
export interface ProjectRow {
  id: string;
  name: string;
  description: string;
  revision: number;
  created_at: number;
  updated_at: number;
}
export interface ReviewRow {
  id: string;
  task_id: string;
  author: string;
  verdict: Review['verdict'];
  body: string;
  created_at: number;
  updated_at: number;
}

/** The columns of a TaskRow, for statements that read or return one. */
export const TASK_COLUMNS =
  'id, title, description, status, assignee, project_id, revision, created_at, updated_at';

/** Storage rows to the catalog's lowerCamelCase DTOs; nothing else leaves the store. */
export const taskOf = (r: TaskRow): Task => ({
  id: r.id,
  title: r.title,
  description: r.description,
  status: r.status,
  assignee: r.assignee,
  projectId: r.project_id,
  revision: r.revision,
  createdAt: isoTime(r.created_at),
  updatedAt: isoTime(r.updated_at),
});

export const projectOf = (r: ProjectRow): Project => ({
  id: r.id,
  name: r.name,
  description: r.description,
  revision: r.revision,
  createdAt: isoTime(r.created_at),
  updatedAt: isoTime(r.updated_at),
});

export const reviewOf = (r: ReviewRow): Review => ({
  id: r.id,
  taskId: r.task_id,
  author: r.author,
  verdict: r.verdict,
  body: r.body,
  createdAt: isoTime(r.created_at),
  updatedAt: isoTime(r.updated_at),
});
