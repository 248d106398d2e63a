import {
  OperatorCallError,
  type OperatorCallOutput,
  type OperatorClient,
} from '../../lib/operator-client.js';
import type { TurnView } from './turns-read.js';

export type TaskView = OperatorCallOutput<'reads.task.get'>['task'];
export type ProjectView = OperatorCallOutput<'reads.project.get'>['project'];
type MessageView = OperatorCallOutput<'messages.history'>['messages'][number];
type ReviewView = OperatorCallOutput<'reads.review.list'>['reviews'][number];

/** The task states, as the catalog lists them (the filter's choices). */
export const TASK_STATES = ['todo', 'in_progress', 'blocked', 'done', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** What the Tasks page shows of one server. */
export interface TasksData {
  readonly serverId: string;
  readonly state: TaskState | null;
  readonly tasks: readonly TaskView[];
  readonly more: boolean;
  readonly projects: readonly ProjectView[];
}

/** What a task's page shows: the task, its project, its thread, the turns on it and its reviews. */
export interface TaskDetailData {
  readonly serverId: string;
  readonly task: TaskView | null;
  readonly project: ProjectView | null;
  readonly messages: readonly MessageView[];
  readonly turns: readonly TurnView[];
  readonly reviews: readonly ReviewView[];
}

/** One page of each list (the reads' own largest page). */
const PAGE = 100;

/** The Tasks page's reads: the same operator reads as `agentteam task list` and `project list`. */
export async function readTasks(
  op: OperatorClient,
  serverId: string,
  state: TaskState | null,
): Promise<TasksData> {
  const params = { serverId };
  const page = await op.call('reads.task.list', {
    params,
    body: { limit: PAGE, ...(state ? { status: state } : {}) },
  });
  const { projects } = await op.call('reads.project.list', { params, body: { limit: PAGE } });
  return { serverId, state, tasks: page.tasks, more: page.hasMore, projects };
}

/** One task (`task get`), its project, its thread (`message history`), the newest turns on it and its reviews. */
export async function readTaskDetail(
  op: OperatorClient,
  serverId: string,
  id: string,
): Promise<TaskDetailData> {
  const params = { serverId };
  let task: TaskView | null = null;
  try {
    task = (await op.call('reads.task.get', { params, body: { id } })).task;
  } catch (err) {
    if (!(err instanceof OperatorCallError) || err.status >= 500) throw err;
  }
  const none = { serverId, task, project: null, messages: [], turns: [], reviews: [] };
  if (!task) return none;
  const project = task.projectId
    ? (await op.call('reads.project.get', { params, body: { id: task.projectId } })).project
    : null;
  const target = `task:${task.id}`;
  const { messages } = await op.call('messages.history', {
    query: { serverId, target, limit: '50' },
  });
  const { turns } = await op.call('reads.turn.list', { params, body: { limit: PAGE } });
  const { reviews } = await op.call('reads.review.list', {
    params,
    body: { taskId: task.id, limit: 50 },
  });
  return {
    serverId,
    task,
    project,
    // Oldest first, as a conversation reads.
    messages: [...messages].reverse(),
    turns: turns.filter((t) => t.target === target),
    reviews,
  };
}
